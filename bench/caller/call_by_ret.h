/* SPDX-License-Identifier: GPL-2.0 */
/* What caller.c and call_by_ret.S share. */
#ifndef VMPB_CALL_BY_RET_H
#define VMPB_CALL_BY_RET_H

/* The function vmpb_call() calls. */
extern void *vmpb_callee;

/* Calls vmpb_callee with these arguments (call_by_ret.S on x86-64). */
void vmpb_call(unsigned long a1, unsigned long a2, unsigned long a3,
	       unsigned long a4, unsigned long a5, unsigned long a6);

#endif /* VMPB_CALL_BY_RET_H */

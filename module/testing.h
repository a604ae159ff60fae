/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hooks for the test-only build (make VMPC_TESTING=1, see testing.c). In
 * the shipped build they are constants the compiler folds away, so that
 * build has none of the test knobs, not even as parameters.
 */
#ifndef VMPC_TESTING_H
#define VMPC_TESTING_H

#include <linux/types.h>

#ifdef VMPC_TESTING
int vmpc_test_fail_resolve(const char *backend, const char *symbol);
int vmpc_test_fail_attach(const char *backend);
int vmpc_test_fail_attach_late(const char *backend);
bool vmpc_test_lose_kprobe(void);
int vmpc_test_fail_detach(void);
bool vmpc_test_count_only(void);
unsigned long vmpc_test_direct_target(unsigned long shipped);
#else
static inline int vmpc_test_fail_resolve(const char *backend,
					 const char *symbol)
{
	return 0;
}

static inline int vmpc_test_fail_attach(const char *backend)
{
	return 0;
}

static inline int vmpc_test_fail_attach_late(const char *backend)
{
	return 0;
}

static inline bool vmpc_test_lose_kprobe(void)
{
	return false;
}

static inline int vmpc_test_fail_detach(void)
{
	return 0;
}

static inline bool vmpc_test_count_only(void)
{
	return false;
}

static inline unsigned long vmpc_test_direct_target(unsigned long shipped)
{
	return shipped;
}
#endif

#endif /* VMPC_TESTING_H */

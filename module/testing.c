// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only knobs, built only by `make VMPC_TESTING=1` (tests/vm/run stages
 * that build in the guest as extra/testing/vmpressure_ctl.ko). Parameters,
 * read-only after load unless marked otherwise:
 *
 *   fail_resolve=BACKEND[:SYMBOL][,...]
 *	resolving SYMBOL (every target when no :SYMBOL is given) with
 *	BACKEND (direct, ftrace or kprobe) fails with -fail_errno, before
 *	the backend is asked; e.g. fail_resolve=direct,kprobe:vmpressure_prio
 *   fail_attach=BACKEND[,...]
 *	every attach of BACKEND (at load with enabled=0, and at each write
 *	of 0) fails with -fail_errno, before the backend is asked
 *   fail_detach=1 (writable)
 *	every detach (a write of 1, unload) fails with -fail_errno, before
 *	the backend is asked, until it is set back to 0: the hooks stay
 *	as the kernel would leave them after refusing to unregister them
 *   fail_attach_late=BACKEND[,...]
 *	every attach of BACKEND fails with -fail_errno after the backend
 *	armed its hooks on the targets and before its last step, one
 *	second later, so that calls made in between are seen; only the
 *	kprobe backend, the one whose attach has such steps (the probes
 *	one by one, then the canary), asks
 *   lose_kprobe=1 (writable)
 *	the next detach of the kprobe backend leaves the probe on the first
 *	target as unregister_kprobes() leaves a probe the kernel failed to
 *	take out once disarmed: still registered, its address cleared; then
 *	it reads 0
 *   fail_errno=N
 *	the errno those fail with, 1 to 4095 (default 5, EIO); 16 (EBUSY)
 *	makes method=auto move on as it does for a conflict
 *   count_only=1
 *	the hooks count every call in skipped and then let the original
 *	function run: the negative control for evidence that must not take
 *	the module's word (skipped) for it
 */
#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "compat.h"
#include "testing.h"
#include "vmpressure_ctl.h"

static char *fail_resolve = "";
module_param(fail_resolve, charp, 0444);
MODULE_PARM_DESC(fail_resolve, "Testing: BACKEND[:SYMBOL],... whose resolution fails with -fail_errno");

static char *fail_attach = "";
module_param(fail_attach, charp, 0444);
MODULE_PARM_DESC(fail_attach, "Testing: BACKEND,... whose every attach fails with -fail_errno");

static bool fail_detach;
module_param(fail_detach, bool, 0644);
MODULE_PARM_DESC(fail_detach, "Testing: every detach fails with -fail_errno while 1 (writable)");

static char *fail_attach_late = "";
module_param(fail_attach_late, charp, 0444);
MODULE_PARM_DESC(fail_attach_late, "Testing: BACKEND,... whose every attach fails with -fail_errno a second after its hooks are armed");

static bool lose_kprobe;
module_param(lose_kprobe, bool, 0644);
MODULE_PARM_DESC(lose_kprobe, "Testing: the next kprobe detach leaves the first probe as the kernel leaves one it failed to unregister (writable)");

static int fail_errno = EIO;
module_param(fail_errno, int, 0444);
MODULE_PARM_DESC(fail_errno, "Testing: errno of the injected failures (default 5, EIO)");

static bool count_only;
module_param(count_only, bool, 0444);
MODULE_PARM_DESC(count_only, "Testing: count calls in skipped, then run the original function");

/* Whether the comma-separated list names backend (and symbol, if given). */
static bool vmpc_test_listed(const char *list, const char *backend,
			     const char *symbol)
{
	size_t blen = strlen(backend);

	while (*list) {
		size_t len = strcspn(list, ",");
		const char *sep = memchr(list, ':', len);
		size_t name_len = sep ? sep - list : len;

		if (name_len == blen && !strncmp(list, backend, blen)) {
			if (!sep)
				return true;
			if (symbol && len - name_len - 1 == strlen(symbol) &&
			    !strncmp(sep + 1, symbol, strlen(symbol)))
				return true;
		}
		list += len;
		if (*list == ',')
			list++;
	}
	return false;
}

static int vmpc_test_errno(void)
{
	return fail_errno > 0 && fail_errno < MAX_ERRNO ? -fail_errno : -EIO;
}

int vmpc_test_fail_resolve(const char *backend, const char *symbol)
{
	return vmpc_test_listed(fail_resolve, backend, symbol) ?
		       vmpc_test_errno() : 0;
}

int vmpc_test_fail_attach(const char *backend)
{
	return vmpc_test_listed(fail_attach, backend, NULL) ?
		       vmpc_test_errno() : 0;
}

int vmpc_test_fail_attach_late(const char *backend)
{
	if (!vmpc_test_listed(fail_attach_late, backend, NULL))
		return 0;
	msleep(1000);
	return vmpc_test_errno();
}

bool vmpc_test_lose_kprobe(void)
{
	return xchg(&lose_kprobe, false);
}

int vmpc_test_fail_detach(void)
{
	return READ_ONCE(fail_detach) ? vmpc_test_errno() : 0;
}

/* Called from the kprobe backend's pre-handler. */
bool vmpc_test_count_only(void)
{
	return count_only;
}

NOKPROBE_SYMBOL(vmpc_test_count_only);

#ifdef VMPC_HAVE_DIRECT
/* Counts, then returns into the hooked function (testing_direct_tramp.S). */
void vmpc_test_direct_count_tramp(void);

unsigned long vmpc_test_direct_target(unsigned long shipped)
{
	return count_only ? (unsigned long)vmpc_test_direct_count_tramp :
			     shipped;
}
#endif

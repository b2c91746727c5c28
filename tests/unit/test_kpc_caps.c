// SPDX-License-Identifier: GPL-2.0
/*
 * kpc_caps: the thread's sets read as /proc says they are, written back,
 * and CAP_SYSLOG (a bit of the kernel's second word) and CAP_SYS_ADMIN
 * raised around a call and lowered after it, only where permitted.  The
 * changes run in a child process, so this test keeps its own capabilities;
 * without capabilities to play with (not root) those cases are skipped.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kpc_caps.h"
#include "test_kpc_tap.h"

/* A set as /proc/self/status shows it ("CapEff:\t000001ffffffffff"). */
static int proc_caps(const char *field, uint64_t *v)
{
	char line[256];
	size_t n = strlen(field);
	FILE *f = fopen("/proc/self/status", "r");
	int ret = -1;

	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			ret = sscanf(line + n + 1, "%" SCNx64, v) == 1 ? 0 : -1;
	fclose(f);
	return ret;
}

static void test_get(void)
{
	struct kpc_cap_sets s;
	uint64_t eff, prm, inh;

	tap_ok(!kpc_caps_get(&s) && !proc_caps("CapEff", &eff) && !proc_caps("CapPrm", &prm) &&
	       !proc_caps("CapInh", &inh) && s.effective == eff && s.permitted == prm &&
	       s.inheritable == inh,
	       "kpc_caps_get() reads the three sets /proc shows, both words of each");
	tap_ok(!kpc_caps_set(&s), "writing the sets back as they are is accepted");
}

/*
 * In a child: CAP_SYSLOG and CAP_SYS_ADMIN permitted, not effective; the
 * exit status says which step failed (0: all held).
 */
static int child_raise_lower(void)
{
	const uint64_t both = KPC_CAP(CAP_SYSLOG) | KPC_CAP(CAP_SYS_ADMIN);
	struct kpc_cap_sets s, now;
	struct kpc_caps c;

	if (kpc_caps_get(&s))
		return 10;
	s.effective &= ~both;
	s.inheritable = 0;
	if (kpc_caps_set(&s) || kpc_caps_get(&now) || (now.effective & both))
		return 11;
	kpc_caps_raise(&c);
	if (!c.raised || kpc_caps_get(&now) || (now.effective & both) != both ||
	    now.effective != (s.effective | both))
		return 12;
	kpc_caps_lower(&c);
	if (kpc_caps_get(&now) || now.effective != s.effective)
		return 13;

	/* Not permitted: nothing to raise, nothing changes. */
	s.permitted &= ~both;
	if (kpc_caps_set(&s))
		return 14;
	kpc_caps_raise(&c);
	if (c.raised || kpc_caps_get(&now) || (now.effective & both))
		return 15;
	kpc_caps_lower(&c);
	if (kpc_caps_get(&now) || now.effective != s.effective || now.permitted != s.permitted)
		return 16;
	return 0;
}

static void test_raise_lower(void)
{
	const uint64_t both = KPC_CAP(CAP_SYSLOG) | KPC_CAP(CAP_SYS_ADMIN);
	struct kpc_cap_sets s;
	int status;
	pid_t pid;

	if (kpc_caps_get(&s) || (s.permitted & both) != both) {
		tap_skip("raising needs CAP_SYSLOG and CAP_SYS_ADMIN permitted (run as root)");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(child_raise_lower());
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		status = -1;
	else
		status = WEXITSTATUS(status);
	tap_ok(status == 0,
	       "permitted-only CAP_SYSLOG and CAP_SYS_ADMIN are raised, then lowered as they"
	       " were; not permitted, nothing is raised (child status %d)", status);
}

int main(void)
{
	test_get();
	test_raise_lower();
	return tap_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Loading, pinning and reading the BPF per-format counters.
 *
 * The kprint.ko hooks are kprobes defined through tracefs as
 * "kprint:kprint_trace_record" and "kprint:kprint_trace_handoff" rather
 * than ones libbpf creates: a probe named by module survives an unload and
 * a reload of kprint.ko (the kernel arms it again when the module comes
 * back, before the module's init runs), and it holds no reference on the
 * module, so kprint stays unloadable while it is counted.  Every printk
 * message is counted by one fentry on vprintk_store().  Ratelimit suppressions
 * are counted either by "kprint:kprint_trace_ratelimit" (kprint.ko's
 * kretprobe on ___ratelimit() hands it each refused call) or by a kprobe
 * and kretprobe on ___ratelimit() itself where the kernel lets them in,
 * never both (kpc_bpf_ratelimit_choose()).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kprint_counter.skel.h"
#include "kpc_bpf.h"
#include "kpc_parse.h"

#define KPC_TRACEFS		"/sys/kernel/tracing"
#define KPC_PROBE_GROUP		"kprint_counter"
#define KPC_KERNEL_BTF		"/sys/kernel/btf/vmlinux"
#define KPC_KPRINT_RATELIMIT	"/sys/module/kprint/parameters/ratelimit"
#define KPC_KPRINT_BRIDGE	"/sys/module/kprint/parameters/bridge"

struct kpc_bpf {
	struct kprint_counter_bpf *skel;
	char pin_dir[PATH_MAX];
	struct kpc_bpf_hook_status status[KPC_BPF_NR_HOOKS];
	enum kpc_bpf_hook rl_hook;	/* the ratelimit hook chosen */
};

static const struct kpc_bpf_hook_def {
	const char *name;	/* for messages */
	const char *pin;	/* the link's pin in the pin directory */
	const char *probe;	/* the tracefs kprobe's target, or NULL */
	const char *probe_suffix; /* of the probe event's name */
	/*
	 * A kernel function a kprobe event needs to be traceable: without
	 * CONFIG_KPROBE_EVENTS_ON_NOTRACE (Debian's 6.1) the kernel refuses a
	 * kprobe on a function ftrace cannot trace, with a printk each time.
	 */
	const char *traceable;
} kpc_bpf_hooks[KPC_BPF_NR_HOOKS] = {
	[KPC_HOOK_KPRINT] = { "kprobe kprint:kprint_trace_record", "kprint_record_link",
			      "kprint:kprint_trace_record", "record" },
	[KPC_HOOK_PRINTK_ENTRY] = { "fentry vprintk_store", "printk_link", NULL, NULL },
	[KPC_HOOK_HANDOFF] = { "kprobe kprint:kprint_trace_handoff", "printk_handoff_link",
			       "kprint:kprint_trace_handoff", "handoff" },
	[KPC_HOOK_RATELIMIT] = { "kretprobe ___ratelimit", "ratelimit_link", NULL, NULL,
				 "___ratelimit" },
	[KPC_HOOK_RATELIMIT_ENTRY] = { "kprobe ___ratelimit", "ratelimit_entry_link", NULL, NULL,
				       "___ratelimit" },
	[KPC_HOOK_RATELIMIT_KPRINT] = { "kprobe kprint:kprint_trace_ratelimit",
					"ratelimit_kprint_link", "kprint:kprint_trace_ratelimit",
					"ratelimit" },
};

static const char *const kpc_bpf_map_pins[] = {
	"kprint_formats", "printk_formats", "kprint_counter_totals", "ratelimit_suppressed",
	"printk_handoff", "ratelimit_calls",
};

const char *kpc_bpf_hook_name(enum kpc_bpf_hook hook)
{
	return kpc_bpf_hooks[hook].name;
}

static struct bpf_program *kpc_bpf_prog(struct kpc_bpf *b, enum kpc_bpf_hook hook)
{
	switch (hook) {
	case KPC_HOOK_KPRINT:
		return b->skel->progs.kprint_count_record;
	case KPC_HOOK_PRINTK_ENTRY:
		return b->skel->progs.printk_count;
	case KPC_HOOK_HANDOFF:
		return b->skel->progs.printk_handoff_where;
	case KPC_HOOK_RATELIMIT:
		return b->skel->progs.ratelimit_count;
	case KPC_HOOK_RATELIMIT_KPRINT:
		return b->skel->progs.ratelimit_count_kprint;
	default:
		return b->skel->progs.ratelimit_enter;
	}
}

const char *kpc_bpf_source_name(enum kpc_bpf_source src)
{
	return src == KPC_BPF_KPRINT ? "kprint" : "printk";
}

static int kpc_bpf_path(char *buf, size_t len, const char *dir, const char *name)
{
	if ((size_t)snprintf(buf, len, "%s/%s", dir, name) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* One probe per pin directory, so that two loaders never share one. */
static void kpc_bpf_probe_name(const char *pin_dir, const char *suffix, char *name, size_t len)
{
	const char *base = strrchr(pin_dir, '/');
	size_t i;

	snprintf(name, len, "%s_%s", base && base[1] ? base + 1 : pin_dir, suffix);
	for (i = 0; name[i]; i++)
		if (!(name[i] == '_' || (name[i] >= '0' && name[i] <= '9') ||
		      (name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= 'A' && name[i] <= 'Z')))
			name[i] = '_';
}

static int kpc_tracefs_append(const char *file, const char *line)
{
	ssize_t len = strlen(line);
	int fd, err = 0;

	fd = open(file, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, line, len) != len)
		err = -errno;
	close(fd);
	return err;
}

/* The tracefs event id of one of our kprint probes, defining it if needed. */
static int kpc_bpf_probe_id(const char *pin_dir, const struct kpc_bpf_hook_def *h, char *why,
			    size_t whylen)
{
	char name[64], path[PATH_MAX], def[256], buf[32];
	uint64_t id;
	ssize_t len;
	int fd, err;

	kpc_bpf_probe_name(pin_dir, h->probe_suffix, name, sizeof(name));
	snprintf(path, sizeof(path), KPC_TRACEFS "/events/" KPC_PROBE_GROUP "/%s/id", name);
	if (access(path, R_OK)) {
		snprintf(def, sizeof(def), "p:" KPC_PROBE_GROUP "/%s %s", name, h->probe);
		err = kpc_tracefs_append(KPC_TRACEFS "/kprobe_events", def);
		if (err && err != -EEXIST) {
			snprintf(why, whylen, "cannot define the kprobe %s in %s/kprobe_events: %s",
				 h->probe, KPC_TRACEFS, strerror(-err));
			return err;
		}
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(why, whylen, "no probe event %s: %s", name, strerror(errno));
		return err;
	}
	len = read(fd, buf, sizeof(buf) - 1);
	err = len > 0 ? 0 : -EIO;
	close(fd);
	if (err) {
		snprintf(why, whylen, "cannot read the id of probe event %s", name);
		return err;
	}
	/* A decimal number and its newline. */
	buf[len] = '\0';
	if (buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	if (kpc_parse_u64(buf, 10, INT_MAX, &id)) {
		snprintf(why, whylen, "probe event %s has no id: \"%s\"", name, buf);
		return -EIO;
	}
	return id;
}

static struct bpf_link *kpc_bpf_attach_probe(struct kpc_bpf *b, enum kpc_bpf_hook hook, int *pfd,
					     char *why, size_t whylen)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.sample_period = 1,
		.wakeup_events = 1,
	};
	struct bpf_link *link;
	int id;

	id = kpc_bpf_probe_id(b->pin_dir, &kpc_bpf_hooks[hook], why, whylen);
	if (id < 0) {
		errno = -id;
		return NULL;
	}
	attr.config = id;
	/*
	 * A BPF program on a trace event runs for every hit on any CPU; the
	 * perf event only has to exist, on one CPU.
	 */
	*pfd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (*pfd < 0) {
		snprintf(why, whylen, "perf_event_open on the kprobe: %s", strerror(errno));
		return NULL;
	}
	link = bpf_program__attach_perf_event(kpc_bpf_prog(b, hook), *pfd);
	if (!link) {
		int err = errno;

		snprintf(why, whylen, "attaching to the kprobe: %s", strerror(err));
		close(*pfd);
		*pfd = -1;
		errno = err;
	}
	return link;
}

/*
 * Whether ftrace can trace @func: -ENOENT if available_filter_functions
 * does not list it, 0 if it does or the list cannot be read (then the
 * attach says).
 */
static int kpc_bpf_traceable(const char *func)
{
	/* The list is long: read once per process for the one name asked. */
	static const char *last;
	static int last_err;
	char line[256];
	size_t len = strlen(func);
	int err = -ENOENT;
	FILE *f;

	if (last == func)
		return last_err;
	f = fopen(KPC_TRACEFS "/available_filter_functions", "re");
	if (!f)
		return 0;
	while (err && fgets(line, sizeof(line), f))
		/* "name" or "name [module]", then the newline */
		if (!strncmp(line, func, len) && (line[len] == '\n' || line[len] == ' '))
			err = 0;
	fclose(f);
	last = func;
	last_err = err;
	return err;
}

/* Attach one hook unless an earlier loader's link is pinned already. */
static int kpc_bpf_hook(struct kpc_bpf *b, enum kpc_bpf_hook hook)
{
	const struct kpc_bpf_hook_def *h = &kpc_bpf_hooks[hook];
	struct kpc_bpf_hook_status *st = &b->status[hook];
	struct bpf_program *prog = kpc_bpf_prog(b, hook);
	struct bpf_link *link;
	char path[PATH_MAX];
	int fd, pfd = -1, err;

	err = kpc_bpf_path(path, sizeof(path), b->pin_dir, h->pin);
	if (err)
		return err;
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		close(fd);
		st->attached = st->reused = true;
		return 0;
	}
	if (!bpf_program__autoload(prog))
		return 0;	/* st->why says why it was not loaded */

	if (h->probe) {
		link = kpc_bpf_attach_probe(b, hook, &pfd, st->why, sizeof(st->why));
	} else {
		link = bpf_program__attach(prog);
		if (!link)
			snprintf(st->why, sizeof(st->why), "attaching %s: %s", h->name,
				 strerror(errno));
	}
	if (!link)
		return 0;	/* skipped, not fatal: the other hook still counts */

	err = bpf_link__pin(link, path);
	/*
	 * The pin keeps the link (and its perf event) alive; disconnect so
	 * that destroying our handle does not disable what the pin holds.
	 */
	bpf_link__disconnect(link);
	close(bpf_link__fd(link));
	if (pfd >= 0)
		close(pfd);
	bpf_link__destroy(link);
	if (err)
		return err;
	st->attached = true;
	return 0;
}

static bool kpc_bpf_pinned(const struct kpc_bpf *b, enum kpc_bpf_hook hook)
{
	char path[PATH_MAX];
	int fd;

	if (kpc_bpf_path(path, sizeof(path), b->pin_dir, kpc_bpf_hooks[hook].pin))
		return false;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Whether a kprint.ko with its ratelimit hook on is loaded. */
static bool kpc_bpf_kprint_ratelimit_on(void)
{
	char buf[4] = "";
	ssize_t len;
	int fd;

	fd = open(KPC_KPRINT_RATELIMIT, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;	/* not loaded, or a kprint.ko without the hook */
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return len > 0 && buf[0] == 'Y';
}

/*
 * Which of the two ratelimit hooks counts, so that no refused call counts
 * twice: an earlier loader's pinned choice stays; else kprint.ko's when it
 * is loaded with its hook on; else the direct hooks where ___ratelimit()
 * is traceable; else kprint.ko's anyway, whose tracefs probe is armed when
 * kprint.ko is loaded.  The choice lasts as long as the pins: loading
 * kprint.ko later on a kernel where the direct hooks were chosen does not
 * switch (kprint_trace_ratelimit() then runs uncounted).
 */
static void kpc_bpf_ratelimit_choose(struct kpc_bpf *b)
{
	struct kpc_bpf_hook_status *ks = &b->status[KPC_HOOK_RATELIMIT_KPRINT];
	struct kpc_bpf_hook_status *ds = &b->status[KPC_HOOK_RATELIMIT];
	const char *direct = kpc_bpf_hooks[KPC_HOOK_RATELIMIT].traceable;

	if (kpc_bpf_pinned(b, KPC_HOOK_RATELIMIT) || kpc_bpf_pinned(b, KPC_HOOK_RATELIMIT_ENTRY)) {
		b->rl_hook = KPC_HOOK_RATELIMIT;
		snprintf(ks->why, sizeof(ks->why), "the hooks on %s pinned by an earlier loader "
			 "count: kprint's would count each call twice", direct);
	} else if (kpc_bpf_pinned(b, KPC_HOOK_RATELIMIT_KPRINT)) {
		b->rl_hook = KPC_HOOK_RATELIMIT_KPRINT;
		snprintf(ds->why, sizeof(ds->why), "kprint:kprint_trace_ratelimit pinned by an "
			 "earlier loader counts: %s's own would count each call twice", direct);
	} else if (kpc_bpf_kprint_ratelimit_on()) {
		b->rl_hook = KPC_HOOK_RATELIMIT_KPRINT;
		snprintf(ds->why, sizeof(ds->why), "kprint.ko's kretprobe on %s counts "
			 "(kprint:kprint_trace_ratelimit), not twice", direct);
	} else if (!kpc_bpf_traceable(direct)) {
		b->rl_hook = KPC_HOOK_RATELIMIT;
		snprintf(ks->why, sizeof(ks->why), "no kprint.ko with ratelimit=1 was loaded when "
			 "the counters were attached, and %s is traceable: counted directly", direct);
	} else {
		b->rl_hook = KPC_HOOK_RATELIMIT_KPRINT;
		snprintf(ds->why, sizeof(ds->why), "%s is not traceable on this kernel (not in "
			 "available_filter_functions): kprobe events refuse it; kprint.ko's "
			 "kretprobe counts instead, while loaded", direct);
	}
	strcpy(b->status[KPC_HOOK_RATELIMIT_ENTRY].why, ds->why);
}

enum kpc_bpf_hook kpc_bpf_ratelimit_hook(const struct kpc_bpf *b)
{
	return b->rl_hook;
}

enum kpc_bpf_hook kpc_bpf_ratelimit_other(const struct kpc_bpf *b)
{
	return b->rl_hook == KPC_HOOK_RATELIMIT ? KPC_HOOK_RATELIMIT_KPRINT : KPC_HOOK_RATELIMIT;
}

/*
 * Keep the size of maps an earlier loader pinned; size new ones.  A pinned
 * map of another layout (left by an older kprint) is -ESTALE: libbpf would
 * refuse to reuse it with a bare -EINVAL, and its pinned link still feeds
 * it from a program of that older layout.
 */
static int kpc_bpf_size_maps(struct kpc_bpf *b, unsigned int max_formats)
{
	struct bpf_map *maps[] = {
		b->skel->maps.kprint_formats, b->skel->maps.printk_formats,
		b->skel->maps.kprint_counter_totals, b->skel->maps.ratelimit_suppressed,
		b->skel->maps.printk_handoff, b->skel->maps.ratelimit_calls,
	};
	struct bpf_map_info info;
	char path[PATH_MAX];
	unsigned int i;
	int fd, err = 0;
	__u32 len;

	for (i = 0; i < sizeof(maps) / sizeof(maps[0]) && !err; i++) {
		bool formats = i < 2;

		if (kpc_bpf_path(path, sizeof(path), b->pin_dir, bpf_map__name(maps[i])))
			continue;
		fd = bpf_obj_get(path);
		if (fd >= 0) {
			memset(&info, 0, sizeof(info));
			len = sizeof(info);
			if (!bpf_obj_get_info_by_fd(fd, &info, &len)) {
				if (info.key_size != bpf_map__key_size(maps[i]) ||
				    info.value_size != bpf_map__value_size(maps[i]))
					err = -ESTALE;
				if (formats)
					bpf_map__set_max_entries(maps[i], info.max_entries);
			}
			close(fd);
		} else if (formats && max_formats) {
			bpf_map__set_max_entries(maps[i], max_formats);
		}
	}
	return err;
}

static int kpc_bpf_load(struct kpc_bpf *b, unsigned int max_formats, bool with_printk)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts, .pin_root_path = b->pin_dir);
	enum kpc_bpf_hook hook;
	int err;

	b->skel = kprint_counter_bpf__open_opts(&oopts);
	if (!b->skel)
		return -errno;
	err = kpc_bpf_size_maps(b, max_formats);
	kpc_bpf_ratelimit_choose(b);
	for (hook = 0; hook < KPC_BPF_NR_HOOKS; hook++) {
		const struct kpc_bpf_hook_def *h = &kpc_bpf_hooks[hook];
		struct kpc_bpf_hook_status *st = &b->status[hook];
		bool load = with_printk || hook == KPC_HOOK_KPRINT;
		char path[PATH_MAX];
		int fd;

		/* The ratelimit hook not chosen has its why already. */
		if (hook == KPC_HOOK_RATELIMIT_KPRINT)
			load = load && b->rl_hook == KPC_HOOK_RATELIMIT_KPRINT;
		else if (hook == KPC_HOOK_RATELIMIT || hook == KPC_HOOK_RATELIMIT_ENTRY)
			load = load && b->rl_hook == KPC_HOOK_RATELIMIT;

		/*
		 * Only what is to be attached now: verifying a program costs
		 * seconds in an emulated guest, and a pinned link's program
		 * is loaded already.
		 */
		if (load && !kpc_bpf_path(path, sizeof(path), b->pin_dir, h->pin) &&
		    (fd = bpf_obj_get(path)) >= 0) {
			close(fd);
			load = false;
		} else if (load && h->traceable && kpc_bpf_traceable(h->traceable)) {
			snprintf(st->why, sizeof(st->why), "%s is not traceable on this kernel "
				 "(not in available_filter_functions): kprobe events refuse it",
				 h->traceable);
			load = false;
		}
		bpf_program__set_autoload(kpc_bpf_prog(b, hook), load);
	}
	if (!err)
		err = kprint_counter_bpf__load(b->skel);
	if (err) {
		kprint_counter_bpf__destroy(b->skel);
		b->skel = NULL;
	}
	return err;
}

/*
 * A kprint.ko loaded before the handoff hook was attached announced its
 * slots to nobody: reading its bridge parameter makes it announce them
 * again (kernel/kprint_handoff.c).  Without kprint.ko, nothing to ask.
 */
static void kpc_bpf_handoff_ask(void)
{
	char buf[8];
	int fd;

	fd = open(KPC_KPRINT_BRIDGE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* Should it fail, messages still count, under the plain key. */
	if (read(fd, buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	close(fd);
}

static void kpc_bpf_quiet_print(void)
{
	/* libbpf's own warnings are the caller's to show: with -v, say. */
	if (!getenv("KPC_BPF_DEBUG"))
		libbpf_set_print(NULL);
}

int kpc_bpf_open(const struct kpc_bpf_opts *opts, struct kpc_bpf **out)
{
	const char *dir = opts && opts->pin_dir ? opts->pin_dir : KPRINT_COUNTER_PIN_DIR;
	unsigned int max = opts ? opts->max_formats : 0;
	struct kpc_bpf_hook_status *ps;
	enum kpc_bpf_hook hook;
	struct kpc_bpf *b;
	int err;

	kpc_bpf_quiet_print();
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	ps = &b->status[KPC_HOOK_PRINTK_ENTRY];
	if (strlen(dir) >= sizeof(b->pin_dir)) {
		err = -ENAMETOOLONG;
		goto err_free;
	}
	strcpy(b->pin_dir, dir);
	if (mkdir(b->pin_dir, 0700) && errno != EEXIST) {
		err = -errno;
		goto err_free;
	}

	if (access(KPC_KERNEL_BTF, R_OK)) {
		snprintf(ps->why, sizeof(ps->why), "this kernel has no BTF (%s): no fentry on vprintk_store",
			 KPC_KERNEL_BTF);
		err = kpc_bpf_load(b, max, false);
	} else {
		err = kpc_bpf_load(b, max, true);
		if (err && err != -ESTALE) {
			/* Most likely vprintk_store() is gone: count kprint anyway. */
			snprintf(ps->why, sizeof(ps->why), "fentry/vprintk_store did not load: %s",
				 strerror(-err));
			err = kpc_bpf_load(b, max, false);
		}
	}
	if (err)
		goto err_free;

	if (ps->why[0]) {
		/* Loaded without the BTF programs: say why for each. */
		strcpy(b->status[KPC_HOOK_HANDOFF].why, ps->why);
		strcpy(b->status[KPC_HOOK_RATELIMIT].why, ps->why);
		strcpy(b->status[KPC_HOOK_RATELIMIT_ENTRY].why, ps->why);
		strcpy(b->status[KPC_HOOK_RATELIMIT_KPRINT].why, ps->why);
	}
	for (hook = 0, err = 0; hook < KPC_BPF_NR_HOOKS && !err; hook++)
		err = kpc_bpf_hook(b, hook);
	if (err)
		goto err_destroy;
	if (b->status[KPC_HOOK_HANDOFF].attached && !b->status[KPC_HOOK_HANDOFF].reused)
		kpc_bpf_handoff_ask();
	*out = b;
	return 0;

err_destroy:
	kprint_counter_bpf__destroy(b->skel);
err_free:
	free(b);
	return err;
}

void kpc_bpf_close(struct kpc_bpf *b)
{
	if (!b)
		return;
	kprint_counter_bpf__destroy(b->skel);
	free(b);
}

const struct kpc_bpf_hook_status *kpc_bpf_status(const struct kpc_bpf *b,
						 enum kpc_bpf_source src)
{
	return &b->status[src == KPC_BPF_KPRINT ? KPC_HOOK_KPRINT : KPC_HOOK_PRINTK_ENTRY];
}

const struct kpc_bpf_hook_status *kpc_bpf_hook_status(const struct kpc_bpf *b,
						      enum kpc_bpf_hook hook)
{
	return &b->status[hook];
}

unsigned int kpc_bpf_max_formats(const struct kpc_bpf *b)
{
	return bpf_map__max_entries(b->skel->maps.kprint_formats);
}

int kpc_bpf_unload(const char *pin_dir)
{
	char path[PATH_MAX], name[64], def[128];
	int i, err = 0;

	if (!pin_dir)
		pin_dir = KPRINT_COUNTER_PIN_DIR;
	for (i = KPC_BPF_NR_HOOKS - 1; i >= 0; i--)
		if (!kpc_bpf_path(path, sizeof(path), pin_dir, kpc_bpf_hooks[i].pin) &&
		    unlink(path) && errno != ENOENT)
			err = -errno;
	for (i = 0; i < (int)(sizeof(kpc_bpf_map_pins) / sizeof(kpc_bpf_map_pins[0])); i++)
		if (!kpc_bpf_path(path, sizeof(path), pin_dir, kpc_bpf_map_pins[i]) &&
		    unlink(path) && errno != ENOENT)
			err = -errno;
	/* The last links are gone, so the probes are unused and can go too. */
	for (i = 0; i < KPC_BPF_NR_HOOKS; i++) {
		if (!kpc_bpf_hooks[i].probe)
			continue;
		kpc_bpf_probe_name(pin_dir, kpc_bpf_hooks[i].probe_suffix, name, sizeof(name));
		snprintf(def, sizeof(def), "-:" KPC_PROBE_GROUP "/%s", name);
		kpc_tracefs_append(KPC_TRACEFS "/kprobe_events", def);
	}
	if (rmdir(pin_dir) && errno != ENOENT && !err)
		err = -errno;
	return err;
}

/* A map's char array as a C string, whatever the kernel left in it. */
static void kpc_bpf_copy_str(char *dst, const char *src, size_t size)
{
	memcpy(dst, src, size);
	dst[size - 1] = '\0';
}

/* Every key and value of @map, in batches; *keys and *values malloc()ed. */
static int kpc_bpf_dump(struct bpf_map *map, void **keys, void **values, size_t *n)
{
	size_t ksize = bpf_map__key_size(map), vsize = bpf_map__value_size(map);
	unsigned int max = bpf_map__max_entries(map);
	__u32 token, count, got = 0;
	int fd = bpf_map__fd(map);
	bool first = true;
	int err = 0;

	*keys = calloc(max, ksize);
	*values = calloc(max, vsize);
	if (!*keys || !*values)
		return -ENOMEM;
	while (got < max) {
		count = max - got;
		err = bpf_map_lookup_batch(fd, first ? NULL : &token, &token,
					   (char *)*keys + got * ksize,
					   (char *)*values + got * vsize, &count, NULL);
		got += count;
		first = false;
		if (err == -ENOENT) {
			err = 0;
			break;
		}
		if (err)
			return err;
	}
	*n = got;
	return 0;
}

int kpc_bpf_read(struct kpc_bpf *b, enum kpc_bpf_source src,
		 struct kpc_format_count **out, size_t *n)
{
	struct bpf_map *map = src == KPC_BPF_KPRINT ? b->skel->maps.kprint_formats :
						      b->skel->maps.printk_formats;
	struct kprint_counter_value *values = NULL;
	struct kprint_counter_key *keys = NULL;
	struct kpc_format_count *res;
	size_t i, got = 0;
	int err;

	err = kpc_bpf_dump(map, (void **)&keys, (void **)&values, &got);
	if (err)
		goto out;

	res = calloc(got ? got : 1, sizeof(*res));
	if (!res) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < got; i++) {
		res[i].format_id = keys[i].format_id;
		res[i].tags_id = keys[i].tags_id;
		res[i].level = keys[i].level;
		res[i].class = keys[i].class;
		res[i].count = values[i].count;
		kpc_bpf_unescape(res[i].format, values[i].format, sizeof(res[i].format));
		kpc_bpf_copy_str(res[i].subsystem, values[i].subsystem,
				 sizeof(res[i].subsystem));
		kpc_bpf_copy_str(res[i].module, values[i].module, sizeof(res[i].module));
	}
	*out = res;
	*n = got;
out:
	free(keys);
	free(values);
	return err;
}

int kpc_bpf_totals(struct kpc_bpf *b, struct kprint_counter_totals *t)
{
	__u32 zero = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.kprint_counter_totals), &zero, t))
		return -errno;
	return 0;
}

uint64_t kpc_bpf_seen(const struct kprint_counter_totals *t, enum kpc_bpf_source src)
{
	/* kprint's echo is a message printk stored, counted per format as its record. */
	return src == KPC_BPF_KPRINT ? t->kprint_records :
	       t->printk_plain + t->printk_bridged + t->printk_echo;
}

const struct kprint_counter_failures *kpc_bpf_failures(const struct kprint_counter_totals *t,
						       enum kpc_bpf_source src)
{
	return src == KPC_BPF_KPRINT ? &t->kprint_failed : &t->printk_failed;
}

uint64_t kpc_bpf_failures_sum(const struct kprint_counter_failures *f)
{
	return f->full + f->busy + f->nomem + f->other;
}

uint64_t kpc_bpf_not_counted(const struct kprint_counter_totals *t, enum kpc_bpf_source src)
{
	uint64_t n = kpc_bpf_failures_sum(kpc_bpf_failures(t, src));

	return src == KPC_BPF_KPRINT ? n : n + t->printk_unreadable;
}

static int kpc_bpf_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

void kpc_bpf_unescape(char *dst, const char *src, size_t size)
{
	size_t o = 0, i = 0;
	int hi, lo;

	while (i < size && src[i] && o + 1 < size) {
		if (src[i] == '\\' && i + 1 < size && src[i + 1] == 'n') {
			dst[o++] = '\n';
			i += 2;
		} else if (src[i] == '\\' && i + 3 < size && src[i + 1] == 'x' &&
			   (hi = kpc_bpf_hex(src[i + 2])) >= 0 && (lo = kpc_bpf_hex(src[i + 3])) >= 0) {
			dst[o++] = hi << 4 | lo;
			i += 4;
		} else {
			/* Not one of ours (an older map): the byte as it is. */
			dst[o++] = src[i++];
		}
	}
	dst[o] = '\0';
}

int kpc_bpf_ratelimits(struct kpc_bpf *b, struct kpc_ratelimit_count **out, size_t *n)
{
	struct bpf_map *map = b->skel->maps.ratelimit_suppressed;
	struct kprint_ratelimit_value *values = NULL;
	struct kprint_ratelimit_key *keys = NULL;
	struct kpc_ratelimit_count *res;
	size_t i, got = 0;
	int err;

	err = kpc_bpf_dump(map, (void **)&keys, (void **)&values, &got);
	if (err)
		goto out;
	res = calloc(got ? got : 1, sizeof(*res));
	if (!res) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < got; i++) {
		res[i].state = keys[i].state;
		kpc_bpf_copy_str(res[i].func, keys[i].func, sizeof(res[i].func));
		res[i].suppressed = values[i].suppressed;
		res[i].burst = values[i].burst;
		res[i].interval_jiffies = values[i].interval_jiffies;
	}
	*out = res;
	*n = got;
out:
	free(keys);
	free(values);
	return err;
}

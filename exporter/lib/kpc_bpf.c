// SPDX-License-Identifier: GPL-2.0
/*
 * Loading, pinning and reading the BPF per-format counters.
 *
 * The kprint hook is a kprobe defined through tracefs as
 * "kprint:kprint_trace_record" rather than one libbpf creates: a probe
 * named by module survives an unload and a reload of kprint.ko (the kernel
 * arms it again when the module comes back), and it holds no reference on
 * the module, so kprint stays unloadable while it is counted.  The printk
 * hook is fentry on vprintk_emit().
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
#define KPC_PROBE_TARGET	"kprint:kprint_trace_record"
#define KPC_KERNEL_BTF		"/sys/kernel/btf/vmlinux"

struct kpc_bpf {
	struct kprint_counter_bpf *skel;
	char pin_dir[PATH_MAX];
	struct kpc_bpf_hook_status status[KPC_BPF_NR_SOURCES];
};

static const char *const kpc_bpf_link_pins[KPC_BPF_NR_SOURCES] = {
	[KPC_BPF_KPRINT] = "kprint_record_link",
	[KPC_BPF_PRINTK] = "printk_link",
};

static const char *const kpc_bpf_map_pins[] = {
	"kprint_formats", "printk_formats", "kprint_counter_totals",
};

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
static void kpc_bpf_probe_name(const char *pin_dir, char *name, size_t len)
{
	const char *base = strrchr(pin_dir, '/');
	size_t i;

	snprintf(name, len, "%s_record", base && base[1] ? base + 1 : pin_dir);
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

/* The tracefs event id of our kprint probe, defining the probe if needed. */
static int kpc_bpf_probe_id(const char *pin_dir, char *why, size_t whylen)
{
	char name[64], path[PATH_MAX], def[256], buf[32];
	uint64_t id;
	ssize_t len;
	int fd, err;

	kpc_bpf_probe_name(pin_dir, name, sizeof(name));
	snprintf(path, sizeof(path), KPC_TRACEFS "/events/" KPC_PROBE_GROUP "/%s/id", name);
	if (access(path, R_OK)) {
		snprintf(def, sizeof(def), "p:" KPC_PROBE_GROUP "/%s " KPC_PROBE_TARGET, name);
		err = kpc_tracefs_append(KPC_TRACEFS "/kprobe_events", def);
		if (err && err != -EEXIST) {
			snprintf(why, whylen, "cannot define the kprobe %s in %s/kprobe_events: %s",
				 KPC_PROBE_TARGET, KPC_TRACEFS, strerror(-err));
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

static struct bpf_link *kpc_bpf_attach_kprint(struct kpc_bpf *b, int *pfd, char *why,
					      size_t whylen)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.sample_period = 1,
		.wakeup_events = 1,
	};
	struct bpf_link *link;
	int id;

	id = kpc_bpf_probe_id(b->pin_dir, why, whylen);
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
	link = bpf_program__attach_perf_event(b->skel->progs.kprint_count_record, *pfd);
	if (!link) {
		int err = errno;

		snprintf(why, whylen, "attaching to the kprobe: %s", strerror(err));
		close(*pfd);
		*pfd = -1;
		errno = err;
	}
	return link;
}

/* Attach one hook unless an earlier loader's link is pinned already. */
static int kpc_bpf_hook(struct kpc_bpf *b, enum kpc_bpf_source src)
{
	struct kpc_bpf_hook_status *st = &b->status[src];
	struct bpf_program *prog = src == KPC_BPF_KPRINT ?
		b->skel->progs.kprint_count_record : b->skel->progs.printk_count;
	struct bpf_link *link;
	char path[PATH_MAX];
	int fd, pfd = -1, err;

	err = kpc_bpf_path(path, sizeof(path), b->pin_dir, kpc_bpf_link_pins[src]);
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

	if (src == KPC_BPF_KPRINT) {
		link = kpc_bpf_attach_kprint(b, &pfd, st->why, sizeof(st->why));
	} else {
		link = bpf_program__attach(prog);
		if (!link)
			snprintf(st->why, sizeof(st->why), "attaching fentry/vprintk_emit: %s",
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

/*
 * Keep the size of maps an earlier loader pinned; size new ones.  A pinned
 * map of another layout (left by an older kprint) is -ESTALE: libbpf would
 * refuse to reuse it with a bare -EINVAL, and its pinned link still feeds
 * it from a program of that older layout.
 */
static int kpc_bpf_size_maps(struct kpc_bpf *b, unsigned int max_formats)
{
	struct bpf_map *maps[] = { b->skel->maps.kprint_formats, b->skel->maps.printk_formats };
	struct bpf_map_info info;
	char path[PATH_MAX];
	unsigned int i;
	int fd, err = 0;
	__u32 len;

	for (i = 0; i < 2 && !err; i++) {
		if (kpc_bpf_path(path, sizeof(path), b->pin_dir, bpf_map__name(maps[i])))
			continue;
		fd = bpf_obj_get(path);
		if (fd >= 0) {
			memset(&info, 0, sizeof(info));
			len = sizeof(info);
			if (!bpf_obj_get_info_by_fd(fd, &info, &len)) {
				if (info.key_size != sizeof(struct kprint_counter_key) ||
				    info.value_size != sizeof(struct kprint_counter_value))
					err = -ESTALE;
				bpf_map__set_max_entries(maps[i], info.max_entries);
			}
			close(fd);
		} else if (max_formats) {
			bpf_map__set_max_entries(maps[i], max_formats);
		}
	}
	return err;
}

static int kpc_bpf_load(struct kpc_bpf *b, unsigned int max_formats, bool with_printk)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts, .pin_root_path = b->pin_dir);
	int err;

	b->skel = kprint_counter_bpf__open_opts(&oopts);
	if (!b->skel)
		return -errno;
	err = kpc_bpf_size_maps(b, max_formats);
	bpf_program__set_autoload(b->skel->progs.printk_count, with_printk);
	if (!err)
		err = kprint_counter_bpf__load(b->skel);
	if (err) {
		kprint_counter_bpf__destroy(b->skel);
		b->skel = NULL;
	}
	return err;
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
	struct kpc_bpf *b;
	int err;

	kpc_bpf_quiet_print();
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	ps = &b->status[KPC_BPF_PRINTK];
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
		snprintf(ps->why, sizeof(ps->why), "this kernel has no BTF (%s): no fentry on vprintk_emit",
			 KPC_KERNEL_BTF);
		err = kpc_bpf_load(b, max, false);
	} else {
		err = kpc_bpf_load(b, max, true);
		if (err && err != -ESTALE) {
			/* Most likely vprintk_emit() is gone: count kprint anyway. */
			snprintf(ps->why, sizeof(ps->why), "fentry/vprintk_emit did not load: %s",
				 strerror(-err));
			err = kpc_bpf_load(b, max, false);
		}
	}
	if (err)
		goto err_free;

	err = kpc_bpf_hook(b, KPC_BPF_KPRINT);
	if (!err)
		err = kpc_bpf_hook(b, KPC_BPF_PRINTK);
	if (err)
		goto err_destroy;
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
	return &b->status[src];
}

unsigned int kpc_bpf_max_formats(const struct kpc_bpf *b)
{
	return bpf_map__max_entries(b->skel->maps.kprint_formats);
}

int kpc_bpf_unload(const char *pin_dir)
{
	char path[PATH_MAX], name[64], def[128];
	unsigned int i;
	int err = 0;

	if (!pin_dir)
		pin_dir = KPRINT_COUNTER_PIN_DIR;
	for (i = 0; i < KPC_BPF_NR_SOURCES; i++)
		if (!kpc_bpf_path(path, sizeof(path), pin_dir, kpc_bpf_link_pins[i]) &&
		    unlink(path) && errno != ENOENT)
			err = -errno;
	for (i = 0; i < sizeof(kpc_bpf_map_pins) / sizeof(kpc_bpf_map_pins[0]); i++)
		if (!kpc_bpf_path(path, sizeof(path), pin_dir, kpc_bpf_map_pins[i]) &&
		    unlink(path) && errno != ENOENT)
			err = -errno;
	kpc_bpf_probe_name(pin_dir, name, sizeof(name));
	snprintf(def, sizeof(def), "-:" KPC_PROBE_GROUP "/%s", name);
	/* The last link is gone, so the probe is unused and can go too. */
	kpc_tracefs_append(KPC_TRACEFS "/kprobe_events", def);
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

int kpc_bpf_read(struct kpc_bpf *b, enum kpc_bpf_source src,
		 struct kpc_format_count **out, size_t *n)
{
	struct bpf_map *map = src == KPC_BPF_KPRINT ? b->skel->maps.kprint_formats :
						      b->skel->maps.printk_formats;
	unsigned int max = bpf_map__max_entries(map);
	struct kprint_counter_value *values;
	struct kprint_counter_key *keys;
	struct kpc_format_count *res;
	__u32 token, count, got = 0;
	int fd = bpf_map__fd(map);
	bool first = true;
	int err = 0;
	size_t i;

	keys = calloc(max, sizeof(*keys));
	values = calloc(max, sizeof(*values));
	if (!keys || !values) {
		err = -ENOMEM;
		goto out;
	}
	while (got < max) {
		count = max - got;
		err = bpf_map_lookup_batch(fd, first ? NULL : &token, &token,
					   keys + got, values + got, &count, NULL);
		got += count;
		first = false;
		if (err == -ENOENT) {
			err = 0;
			break;
		}
		if (err)
			goto out;
	}

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
		kpc_bpf_copy_str(res[i].format, values[i].format, sizeof(res[i].format));
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

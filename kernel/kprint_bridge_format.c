// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the printk bridge's formats, and the messages they begin.
 */

/**
 * DOC: printk bridge formats
 *
 * The record's format is the one the call site compiled.  Leading KERN_SOH
 * pairs and one trailing newline are stripped.  dev_printk() and
 * netdev_printk() hand printk a fixed wrapper format (dev_printk()'s is
 * "%s %s: %pV").  The record takes the caller's own format instead, from
 * inside the struct va_format.
 *
 * Measuring and hashing a format on every message cost too much.  So the
 * stripped format's length, its id and its plan are cached, per format
 * pointer.  Only a format in read-only memory is cached: a string literal
 * cannot change under the same pointer.  A format in a buffer is measured
 * every time.
 *
 * Where a format lies also says whose message it is, even when the return
 * address does not: the module whose memory holds it, or the kernel image.
 * That owner is cached with the format.  A module's formats are forgotten
 * with its call sites (kprint_bridge_caller.c).
 */

#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/pgtable.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "kprint_bridge_shared.h"

/*
 * Formats: the stripped format, its length and its id, per format pointer.
 * Measuring and hashing the format byte by byte on every message was a
 * good part of the bridge's cost; kprint_*() sites keep theirs in the
 * site.  Only a format in read-only memory (a string literal in the
 * rodata of vmlinux or of a module) is cached, since its bytes cannot
 * change under the same pointer; a format in a buffer is measured every
 * time.  A module's entries are forgotten with its sites.
 */
#define KPRINT_BRIDGE_FORMATS_BITS	10
#define KPRINT_BRIDGE_FORMATS		(1U << KPRINT_BRIDGE_FORMATS_BITS)

/**
 * struct kprint_bridge_format - what is known of a format printk was given
 * @key: the pointer printk (or the %pV of a dev_printk()) was given; 0 for
 *	a free slot, claimed with cmpxchg()
 * @ready: the other fields are filled in (set with release)
 * @skip: bytes of leading KERN_SOH pairs (printk_skip_headers())
 * @len: bytes of the format after them, without one trailing newline
 * @id: FNV-1a 64 of those @len bytes
 * @plan: its conversions (kprint_render_plan()); deferrable only if the
 *	format also ends its line and is stored whole
 * @wrap: which of kprint_bridge_wrappers it is, or -1: no message whose
 *	format the cache knows is compared with them again
 * @owner: the module whose rodata holds it, or the kernel image
 */
struct kprint_bridge_format {
	unsigned long key;
	bool ready;
	s8 wrap;
	u16 skip;
	u16 len;
	u64 id;
	struct kprint_render_plan plan;
	struct kprint_bridge_owner owner;
};

static struct kprint_bridge_format *kprint_bridge_formats;

/*
 * Formats of the helpers that wrap a caller's format in a struct
 * va_format: the text starts with @prefix rendered from @nstr string
 * arguments, then the %pV.
 */
const struct kprint_bridge_wrapper kprint_bridge_wrappers[] = {
	/* drivers/base/core.c, __dev_printk() */
	{ "%s %s: %pV", "%s %s: ", 2 },
	/* net/core/dev.c, __netdev_printk() */
	{ "%s %s %s%s: %pV", "%s %s %s%s: ", 4 },
	{ "%s%s%s: %pV", "%s%s%s: ", 3 },
	{ "%s(NULL net_device): %pV", "%s(NULL net_device): ", 1 },
};

/* Which of kprint_bridge_wrappers @fmt is, or -1. */
static int kprint_bridge_wrap_index(const char *fmt)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kprint_bridge_wrappers); i++)
		if (!strcmp(fmt, kprint_bridge_wrappers[i].fmt))
			return i;
	return -1;
}

/*
 * The module a format belongs to.  A format is a string literal in the
 * rodata of the code that printed it, so where it lies says whose message
 * it is even when the return address does not: a function that ends in a
 * tail call to printk (brd_exit() does: "jmp _printk") leaves its
 * caller's return address, in another module or in the kernel.
 * __module_address() is not exported: the bridge walks the module list
 * itself, as that function does, only for a format in the module area and
 * only once per format pointer the format cache keeps.  The kernel image
 * is told by its address range alone.
 */

/* Where modules live: their text, rodata and data (x86-64's layout). */
static bool kprint_bridge_in_module_area(unsigned long addr)
{
#ifdef CONFIG_X86_64
	return addr >= MODULES_VADDR && addr < MODULES_END;
#else
	return false;
#endif
}

/* The kernel image's mapping, just below the modules'. */
static bool kprint_bridge_in_image(unsigned long addr)
{
#ifdef CONFIG_X86_64
	return addr >= __START_KERNEL_map && addr < MODULES_VADDR;
#else
	return false;
#endif
}

static void kprint_bridge_owner_set(struct kprint_bridge_owner *o,
				    const char *name, bool image)
{
	strscpy(o->module, name, sizeof(o->module));
	o->module_len = strlen(o->module);
	o->image = image;
	o->tags_id = kprint_bridge_tags_id(o->module, o->module_len);
}

/*
 * Fills @o with the module whose memory holds @addr ("vmlinux" for the
 * kernel image), or leaves it empty.
 * The list has no exported head: it is walked round from kprint.ko's own
 * entry, and the head is the one entry outside the module area.  Needs
 * preemption off (RCU-sched, as __module_address()): a module is freed
 * only after a grace period once off the list.
 */
static void kprint_bridge_owner_find(unsigned long addr,
				     struct kprint_bridge_owner *o)
{
	struct list_head *pos = &THIS_MODULE->list;
	const struct module *mod;

	o->module_len = 0;
	o->module[0] = '\0';
	if (kprint_bridge_in_image(addr))
		kprint_bridge_owner_set(o, "vmlinux", true);
	if (!kprint_bridge_in_module_area(addr))
		return;
	do {
		if (kprint_bridge_in_module_area((unsigned long)pos)) {
			mod = list_entry(pos, struct module, list);
			if (READ_ONCE(mod->state) != MODULE_STATE_UNFORMED &&
			    within_module(addr, mod)) {
				kprint_bridge_owner_set(o, mod->name, false);
				return;
			}
		}
		pos = rcu_dereference_sched(list_next_rcu(pos));
	} while (pos != &THIS_MODULE->list);
}

/*
 * The plan of @format (KERN_ pairs stripped, @len bytes without one
 * trailing newline), deferrable only if the format also ends its line and
 * is stored whole: the deferred text is the stored format's, rendered, and
 * a printk text drops one trailing newline.
 */
void kprint_bridge_plan(const char *format, size_t len,
			struct kprint_render_plan *plan)
{
	kprint_render_plan(format, plan);
	if (len >= KPRINT_FORMAT_MAX || format[len] != '\n' || format[len + 1])
		plan->deferrable = false;
}

/* Is [start, start + size) mapped read-only, every page of it? */
static bool kprint_bridge_read_only(unsigned long start, size_t size)
{
#ifdef CONFIG_X86
	unsigned long addr;
	unsigned int level;
	pte_t *pte;

	for (addr = start & PAGE_MASK; addr < start + size; addr += PAGE_SIZE) {
		pte = lookup_address(addr, &level);
		if (!pte || !pte_present(*pte) || pte_write(*pte))
			return false;
	}
	return true;
#else
	return false;
#endif
}

static const struct kprint_bridge_format *
kprint_bridge_format_cached(unsigned long key)
{
	unsigned int h = hash_long(key, KPRINT_BRIDGE_FORMATS_BITS), i;
	struct kprint_bridge_format *f;

	for (i = 0; i < KPRINT_BRIDGE_SITE_PROBES; i++) {
		f = &kprint_bridge_formats[(h + i) & (KPRINT_BRIDGE_FORMATS - 1)];
		if (READ_ONCE(f->key) == key)
			return smp_load_acquire(&f->ready) ? f : NULL;
	}
	return NULL;
}

/* Remembers a format of @size bytes (its NUL included) at @key. */
static void kprint_bridge_format_add(unsigned long key, size_t size,
				     size_t skip, size_t len, u64 id,
				     const struct kprint_bridge_owner *owner)
{
	unsigned int h = hash_long(key, KPRINT_BRIDGE_FORMATS_BITS), i;
	struct kprint_bridge_format *f;

	if (size > U16_MAX || !kprint_bridge_read_only(key, size))
		return;
	for (i = 0; i < KPRINT_BRIDGE_SITE_PROBES; i++) {
		f = &kprint_bridge_formats[(h + i) & (KPRINT_BRIDGE_FORMATS - 1)];
		if (READ_ONCE(f->key) == key)
			return;
		if (!READ_ONCE(f->key) && cmpxchg(&f->key, 0, key) == 0) {
			f->wrap = kprint_bridge_wrap_index((const char *)key);
			f->skip = skip;
			f->len = len;
			f->id = id;
			f->owner = *owner;
			kprint_bridge_plan((const char *)key + skip, len,
					   &f->plan);
			smp_store_release(&f->ready, true);
			return;
		}
	}
}

/* Forgets the formats inside [lo, hi), with the sites there. */
void kprint_bridge_format_forget(unsigned long lo, unsigned long hi)
{
	unsigned int i;

	for (i = 0; i < KPRINT_BRIDGE_FORMATS; i++) {
		struct kprint_bridge_format *f = &kprint_bridge_formats[i];

		if (READ_ONCE(f->key) >= lo && READ_ONCE(f->key) < hi &&
		    smp_load_acquire(&f->ready)) {
			WRITE_ONCE(f->ready, false);
			smp_store_release(&f->key, 0);
		}
	}
}

/*
 * The owner of a format the cache does not have, per CPU and interrupt
 * context level: kprint_bridge_msg_init() runs before the hook knows it is
 * not nested (in NMI too).
 */
static DEFINE_PER_CPU(struct kprint_bridge_owner[4], kprint_bridge_owner_tmp);

void kprint_bridge_msg_init(struct kprint_bridge_msg *m,
			    struct pt_regs *regs)
{
	const struct kprint_bridge_format *f;
	struct kprint_bridge_owner *owner;
	struct va_format *vaf = NULL;
	unsigned long key;
	unsigned int j;
	size_t size;
	va_list ap;
	int wrap;

	m->facility = regs_get_kernel_argument(regs, 0);
	m->level = regs_get_kernel_argument(regs, 1);
	m->dev_info = (void *)regs_get_kernel_argument(regs, 2);
	m->fmt = (const char *)regs_get_kernel_argument(regs, 3);
	m->args = (va_list *)regs_get_kernel_argument(regs, 4);
	m->wrap = -1;
	m->format = m->fmt;
	m->format_args = m->args;
	m->plan = NULL;
	m->caller = NULL;

	f = kprint_bridge_format_cached((unsigned long)m->fmt);
	wrap = f ? f->wrap : kprint_bridge_wrap_index(m->fmt);
	if (wrap >= 0) {
		va_copy(ap, *m->args);
		for (j = 0; j < kprint_bridge_wrappers[wrap].nstr; j++)
			m->wrap_str[j] = va_arg(ap, const char *);
		vaf = va_arg(ap, struct va_format *);
		va_end(ap);
		if (vaf && vaf->fmt && vaf->va) {
			m->wrap = wrap;
			m->wrap_fmt = vaf->fmt;
			m->format = vaf->fmt;
			m->format_args = vaf->va;
			f = kprint_bridge_format_cached((unsigned long)m->format);
		}
	}

	key = (unsigned long)m->format;
	if (f) {
		m->format += f->skip;
		m->format_len = f->len;
		m->format_id = f->id;
		m->plan = &f->plan;
		m->owner = f->owner.module_len ? &f->owner : NULL;
		return;
	}
	owner = &this_cpu_ptr(kprint_bridge_owner_tmp)[interrupt_context_level()];
	kprint_bridge_owner_find(key, owner);
	m->owner = owner->module_len ? owner : NULL;
	m->format = printk_skip_headers(m->format);
	size = strlen(m->format);
	m->format_len = size;
	if (m->format_len && m->format[m->format_len - 1] == '\n')
		m->format_len--;
	m->format_id = kprint_fnv1a64_mem(m->format, m->format_len);
	kprint_bridge_format_add(key, m->format + size + 1 - (const char *)key,
				 m->format - (const char *)key, m->format_len,
				 m->format_id, owner);
}

/**
 * kprint_bridge_format_alloc() - make the format cache
 *
 * Context: Process context (kprint_bridge_init()).
 * Return: 0 or -ENOMEM.
 */
int kprint_bridge_format_alloc(void)
{
	kprint_bridge_formats = vzalloc(KPRINT_BRIDGE_FORMATS *
					sizeof(*kprint_bridge_formats));
	return kprint_bridge_formats ? 0 : -ENOMEM;
}

/* Frees the format cache, once no CPU is in the hook. */
void kprint_bridge_format_free(void)
{
	vfree(kprint_bridge_formats);
	kprint_bridge_formats = NULL;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel image's part of the call-site catalog (kpc_sites_scan.h).
 *
 * A bzImage carries the kernel as a compressed ELF (its payload).  That ELF
 * has no symbol table, but it keeps its section headers, and three things
 * in it are enough: .rodata holds the formats; __ksymtab and
 * __ksymtab_gpl, the table of exported symbols, give the addresses of
 * _printk, _dev_err and the other printing functions by name; and the code
 * in .text loads a format's address into the register of the format
 * argument just before it calls one of them.  So the formats with a
 * KERN_SOH level are read from .rodata directly, and those without one
 * (the literal first arguments of _printk(), dev_*() and netdev_*()
 * formats of built-in drivers) from those call sites.  Functions are only
 * known from the running kernel's /proc/kallsyms.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpc_sites_scan.h"

/* The x86 boot protocol's setup header (Documentation/arch/x86/boot.rst). */
#define KPC_BZ_SETUP_SECTS	0x1f1
#define KPC_BZ_HEADER_MAGIC	0x202	/* "HdrS" */
#define KPC_BZ_PAYLOAD_OFFSET	0x248
#define KPC_BZ_PAYLOAD_LENGTH	0x24c

/*
 * How far before a call the format's load may be.  Compilers mostly put
 * the argument loads right before the call (in 6.1, 99.7% of the formats
 * loaded for a printing call lie within 64 bytes of it), but stores of a
 * whole structure may come in between.  That no call or jump may come
 * between keeps a load from pairing with a call it is not for.
 */
#define KPC_SITE_WINDOW		256

/* The registers of the first three arguments (x86-64 SysV): rdi, rsi, rdx. */
#define KPC_ARG_REGS		3

#define KPC_TEXT_SECTIONS	4

/* The shortest format the KERN_SOH scan takes from inside another string. */
#define KPC_MERGED_MIN		4

struct kpc_section {
	const unsigned char *p;
	uint64_t addr, size;
};

struct kpc_printer_addr {
	uint64_t addr;
	const struct kpc_sites_printer *printer;
};

struct kpc_ksym {
	uint64_t addr;
	char *name;
};

/* The last string load into each argument register since the last call. */
struct kpc_load {
	uint64_t at;		/* the instruction's address; 0: none */
	uint64_t str;		/* the string's address */
};

struct kpc_image {
	void *elf;
	size_t len;
	Elf *e;
	struct kpc_section text[KPC_TEXT_SECTIONS];
	unsigned int ntext;
	uint64_t text_base;	/* where .text begins: _text */
	struct kpc_section rodata, ksymtab, ksymtab_gpl, ksymtab_strings;
	struct kpc_printer_addr *printers;
	size_t nprinters;
	/* .rodata offsets a call site added, which the KERN_SOH scan skips. */
	unsigned char *taken;
	/* kallsyms' text symbols, sorted, and how far KASLR moved them. */
	struct kpc_ksym *ksyms;
	size_t nksyms;
	uint64_t kaslr;
	struct kpc_sites *out;
};

static uint32_t kpc_le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The bzImage's payload, uncompressed: the vmlinux ELF; or a vmlinux itself. */
static int kpc_image_payload(const char *path, struct kpc_image *img, char *err, size_t errlen)
{
	unsigned char *bz;
	size_t bzlen, pm, off, len;
	char why[256];
	int ret = kpc_sites_read_file(path, (void **)&bz, &bzlen, err, errlen);

	if (ret)
		return ret;
	/* A vmlinux as it is (a debug package's, or one built here). */
	if (bzlen >= SELFMAG && !memcmp(bz, ELFMAG, SELFMAG)) {
		img->elf = bz;
		img->len = bzlen;
		return 0;
	}
	if (bzlen < KPC_BZ_PAYLOAD_LENGTH + 4 || memcmp(bz + KPC_BZ_HEADER_MAGIC, "HdrS", 4)) {
		free(bz);
		return kpc_sites_fail(-EINVAL, err, errlen, "%s: neither a bzImage nor an ELF",
				      path);
	}
	/* setup_sects 0 means 4, for old boot loaders' sake. */
	pm = ((size_t)(bz[KPC_BZ_SETUP_SECTS] ? bz[KPC_BZ_SETUP_SECTS] : 4) + 1) * 512;
	off = kpc_le32(bz + KPC_BZ_PAYLOAD_OFFSET);
	len = kpc_le32(bz + KPC_BZ_PAYLOAD_LENGTH);
	if (pm + off < pm || pm + off + len < pm + off || pm + off + len > bzlen || !len) {
		free(bz);
		return kpc_sites_fail(-EINVAL, err, errlen,
				      "%s: the payload (%zu bytes at %zu) lies outside the file",
				      path, len, pm + off);
	}
	ret = kpc_sites_unpack(bz + pm + off, len, &img->elf, &img->len, why, sizeof(why));
	free(bz);
	if (ret)
		return kpc_sites_fail(ret, err, errlen, "%s: payload: %s", path, why);
	return 0;
}

static void kpc_image_keep_section(struct kpc_image *img, const char *name,
				   const struct kpc_section *sec)
{
	if (!strcmp(name, ".rodata"))
		img->rodata = *sec;
	else if (!strcmp(name, "__ksymtab"))
		img->ksymtab = *sec;
	else if (!strcmp(name, "__ksymtab_gpl"))
		img->ksymtab_gpl = *sec;
	else if (!strcmp(name, "__ksymtab_strings"))
		img->ksymtab_strings = *sec;
	if (!strcmp(name, ".text"))
		img->text_base = sec->addr;
	if ((!strcmp(name, ".text") || !strcmp(name, ".init.text") ||
	     !strcmp(name, ".exit.text")) && img->ntext < KPC_TEXT_SECTIONS)
		img->text[img->ntext++] = *sec;
}

/* The sections the scan reads, pointing into the ELF in memory. */
static int kpc_image_sections(struct kpc_image *img, const char *path, char *err, size_t errlen)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t shstrndx;

	elf_version(EV_CURRENT);
	img->e = elf_memory(img->elf, img->len);
	if (!img->e || elf_kind(img->e) != ELF_K_ELF || !gelf_getehdr(img->e, &eh) ||
	    eh.e_machine != EM_X86_64 || elf_getshdrstrndx(img->e, &shstrndx))
		return kpc_sites_fail(-EINVAL, err, errlen, "%s: the payload is no x86-64 ELF: %s",
				      path, elf_errmsg(-1));
	while ((scn = elf_nextscn(img->e, scn))) {
		GElf_Shdr sh;
		struct kpc_section sec;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(img->e, shstrndx, sh.sh_name);
		if (!name || sh.sh_offset > img->len || sh.sh_size > img->len - sh.sh_offset)
			continue;
		sec = (struct kpc_section){ (unsigned char *)img->elf + sh.sh_offset,
					    sh.sh_addr, sh.sh_size };
		kpc_image_keep_section(img, name, &sec);
	}
	if (!img->rodata.size || !img->text_base || !img->ksymtab_strings.size)
		return kpc_sites_fail(-EINVAL, err, errlen,
				      "%s: the kernel ELF lacks .rodata, .text or __ksymtab_strings",
				      path);
	return 0;
}

static bool kpc_in(const struct kpc_section *sec, uint64_t addr)
{
	return addr >= sec->addr && addr - sec->addr < sec->size;
}

/* A NUL-terminated string at @addr of @sec, or NULL. */
static const char *kpc_section_string(const struct kpc_section *sec, uint64_t addr, size_t *len)
{
	const char *s, *nul;

	if (!kpc_in(sec, addr))
		return NULL;
	s = (const char *)sec->p + (addr - sec->addr);
	nul = memchr(s, '\0', sec->size - (addr - sec->addr));
	if (!nul)
		return NULL;
	*len = nul - s;
	return s;
}

static int kpc_printer_cmp(const void *pa, const void *pb)
{
	const struct kpc_printer_addr *a = pa, *b = pb;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/*
 * The printing functions' addresses from one export table: on x86-64 each
 * struct kernel_symbol is three PREL32 offsets (value, name, namespace),
 * each relative to its own field.
 */
static int kpc_image_exports(struct kpc_image *img, const struct kpc_section *tab)
{
	uint64_t i;

	for (i = 0; i + 12 <= tab->size; i += 12) {
		const unsigned char *ks = tab->p + i;
		uint64_t value = tab->addr + i + (int32_t)kpc_le32(ks);
		uint64_t name_at = tab->addr + i + 4 + (int32_t)kpc_le32(ks + 4);
		const struct kpc_sites_printer *pr;
		struct kpc_printer_addr *v;
		const char *name;
		size_t len;

		name = kpc_section_string(&img->ksymtab_strings, name_at, &len);
		pr = name ? kpc_sites_printer(name) : NULL;
		if (!pr)
			continue;
		v = realloc(img->printers, (img->nprinters + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		img->printers = v;
		v[img->nprinters++] = (struct kpc_printer_addr){ value, pr };
	}
	return 0;
}

static const struct kpc_sites_printer *kpc_image_printer_at(const struct kpc_image *img,
							    uint64_t addr)
{
	struct kpc_printer_addr key = { addr, NULL }, *hit;

	hit = bsearch(&key, img->printers, img->nprinters, sizeof(key), kpc_printer_cmp);
	return hit ? hit->printer : NULL;
}

/* The length of the UTF-8 sequence at @s, or 0 if it is none. */
static size_t kpc_utf8_seq(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len, i;

	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		len = 2;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		len = 3;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++)
		if ((u[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/*
 * A plausible format: the bytes after any KERN_SOH pairs are text (tabs,
 * newlines and UTF-8 allowed, no other control bytes) and not empty.  Data
 * tables in .rodata hold 0x01 followed by a digit often enough.
 */
static bool kpc_image_text(const char *s, size_t n)
{
	const char *fmt;
	size_t len, i;

	kpc_sites_strip(s, n, &fmt, &len);
	if (fmt == s + n)
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = fmt[i];

		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != 0x1b)
			return false;
		if (c == 0x7f)
			return false;
		if (c >= 0x80) {
			size_t seq = kpc_utf8_seq(fmt + i, len - i);

			if (!seq)
				return false;
			i += seq - 1;
		}
	}
	return true;
}

static int kpc_ksym_cmp(const void *pa, const void *pb)
{
	const struct kpc_ksym *a = pa, *b = pb;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* The function of a site at @addr (the image's address), or NULL. */
static const char *kpc_image_function(const struct kpc_image *img, uint64_t addr)
{
	size_t lo = 0, hi = img->nksyms;

	if (!img->nksyms)
		return NULL;
	addr += img->kaslr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (img->ksyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? img->ksyms[lo - 1].name : NULL;
}

/*
 * One call site: the format at @str loaded for @pr, called at @at.  The
 * level of dev_printk()/netdev_printk() comes from the string loaded into
 * rdi (@level_str, 0 when none was), the others' from the printer or the
 * format's own KERN_SOH.
 */
static int kpc_image_add_site(struct kpc_image *img, const struct kpc_sites_printer *pr,
			      uint64_t str, uint64_t level_str, uint64_t at)
{
	const char *s, *fmt;
	size_t n, len;
	enum kpc_site_kind kind = pr->kind;
	int level = pr->level, own;

	s = kpc_section_string(&img->rodata, str, &n);
	if (!s || !kpc_image_text(s, n))
		return 0;
	own = kpc_sites_strip(s, n, &fmt, &len);
	if (kind == KPC_SITE_PRINTK_BARE && own != KPC_SITE_LEVEL_NONE)
		kind = KPC_SITE_PRINTK;
	if (level == KPC_SITE_LEVEL_NONE)
		level = own;
	if (level == KPC_SITE_LEVEL_NONE && level_str && pr->fmt_arg) {
		const char *ls, *rest;
		size_t lsn, restlen;

		ls = kpc_section_string(&img->rodata, level_str, &lsn);
		if (ls)
			level = kpc_sites_strip(ls, lsn, &rest, &restlen);
	}
	img->taken[str - img->rodata.addr] = 1;
	return kpc_sites_add_found(img->out, fmt, len, level, "vmlinux",
				   kpc_image_function(img, at), kind, KPC_SITE_SRC_IMAGE);
}

/*
 * A string load at @p, if it is one: mov $imm32,%reg (sign-extended, the
 * address of non-PIC vmlinux code) or lea disp32(%rip),%reg, into rdi, rsi
 * or rdx, of an address in .rodata.  Returns the register (0..2) or -1.
 */
static int kpc_image_load(const struct kpc_image *img, const unsigned char *p, uint64_t at,
			  uint64_t *str)
{
	static const unsigned char mov_modrm[KPC_ARG_REGS] = { 0xc7, 0xc6, 0xc2 };
	static const unsigned char lea_modrm[KPC_ARG_REGS] = { 0x3d, 0x35, 0x15 };
	int reg;

	if (p[0] != 0x48 || (p[1] != 0xc7 && p[1] != 0x8d))
		return -1;
	for (reg = 0; reg < KPC_ARG_REGS; reg++) {
		if (p[1] == 0xc7 && p[2] == mov_modrm[reg])
			*str = (uint64_t)(int64_t)(int32_t)kpc_le32(p + 3);
		else if (p[1] == 0x8d && p[2] == lea_modrm[reg])
			*str = at + 7 + (int64_t)(int32_t)kpc_le32(p + 3);
		else
			continue;
		return kpc_in(&img->rodata, *str) ? reg : -1;
	}
	return -1;
}

static bool kpc_image_in_text(const struct kpc_image *img, uint64_t addr)
{
	unsigned int i;

	for (i = 0; i < img->ntext; i++)
		if (kpc_in(&img->text[i], addr))
			return true;
	return false;
}

/*
 * The call sites of one code section, byte by byte: no disassembler, so a
 * load or call is recognised by its encoding wherever it starts, and a
 * call only counts when it lands in code (random bytes seldom do).
 */
static int kpc_image_scan_code(struct kpc_image *img, const struct kpc_section *sec)
{
	struct kpc_load loads[KPC_ARG_REGS] = { 0 };
	uint64_t i;
	int ret;

	for (i = 0; i + 7 <= sec->size; i++) {
		const unsigned char *p = sec->p + i;
		uint64_t at = sec->addr + i, target, str;
		const struct kpc_sites_printer *pr;
		int reg = kpc_image_load(img, p, at, &str);

		if (reg >= 0) {
			loads[reg] = (struct kpc_load){ at, str };
			i += 6;
			continue;
		}
		if (p[0] != 0xe8 && p[0] != 0xe9)
			continue;
		target = at + 5 + (int64_t)(int32_t)kpc_le32(p + 1);
		if (!kpc_image_in_text(img, target))
			continue;
		pr = kpc_image_printer_at(img, target);
		if (pr && loads[pr->fmt_arg].at && at - loads[pr->fmt_arg].at <= KPC_SITE_WINDOW) {
			uint64_t level_str = loads[0].at &&
					     at - loads[0].at <= KPC_SITE_WINDOW ? loads[0].str : 0;

			ret = kpc_image_add_site(img, pr, loads[pr->fmt_arg].str, level_str, at);
			if (ret)
				return ret;
		}
		memset(loads, 0, sizeof(loads));
		i += 4;
	}
	return 0;
}

/*
 * Whether a KERN_SOH pair at @s can begin a format of @len bytes: after a
 * NUL, or inside a string of text that a format was merged into the tail
 * of.  Inside anything else, 0x01 and a digit are as often the bytes of
 * some table, and a tail-merged format must also say a little more.
 */
static bool kpc_image_string_start(const char *base, const char *s, size_t len)
{
	unsigned char before = s > base ? s[-1] : 0;

	if (!before)
		return true;
	return (before == '\n' || before == '\t' || (before >= 0x20 && before < 0x7f)) &&
	       len >= KPC_MERGED_MIN;
}

/*
 * Every KERN_SOH pair in .rodata that begins a plausible format, also
 * inside another string: the linker merges a string into the tail of a
 * longer one, so a format can start anywhere.  A pair right after another
 * belongs to the format the first one begins.
 */
static int kpc_image_scan_rodata(struct kpc_image *img)
{
	const char *base = (const char *)img->rodata.p, *end = base + img->rodata.size;
	const char *s = base;
	int ret;

	while ((s = memchr(s, '\001', end - s))) {
		const char *nul, *fmt;
		size_t len;
		int level;

		if (s + 1 >= end || !((s[1] >= '0' && s[1] <= '7') || s[1] == 'c') ||
		    (s - base >= 2 && s[-2] == '\001' &&
		     ((s[-1] >= '0' && s[-1] <= '7') || s[-1] == 'c'))) {
			s++;
			continue;
		}
		nul = memchr(s, '\0', end - s);
		if (!nul)
			break;
		level = kpc_sites_strip(s, nul - s, &fmt, &len);
		if (!img->taken[s - base] && kpc_image_text(s, nul - s) &&
		    kpc_image_string_start(base, s, len)) {
			ret = kpc_sites_add_found(img->out, fmt, len, level, "vmlinux", NULL,
						  KPC_SITE_PRINTK, KPC_SITE_SRC_IMAGE);
			if (ret)
				return ret;
		}
		s += 2;
	}
	return 0;
}

static int kpc_ksyms_add(struct kpc_image *img, size_t *cap, uint64_t addr, const char *name)
{
	struct kpc_ksym *v;

	if (img->nksyms == *cap) {
		*cap = *cap ? *cap * 2 : 1 << 16;
		v = realloc(img->ksyms, *cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		img->ksyms = v;
	}
	img->ksyms[img->nksyms].addr = addr;
	img->ksyms[img->nksyms].name = strdup(name);
	if (!img->ksyms[img->nksyms].name)
		return -ENOMEM;
	img->nksyms++;
	return 0;
}

/*
 * The kernel's own text symbols from /proc/kallsyms (those of modules,
 * "[name]" after the symbol, are not the image's), and the KASLR offset:
 * kallsyms' _text against the image's, which is where .text begins.
 */
static int kpc_image_kallsyms(struct kpc_image *img, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char line[1024], name[512], type;
	unsigned long long addr, text = 0;
	size_t cap = 0;
	int ret = 0;

	if (!f)
		return kpc_sites_fail(-errno, err, errlen, "%s: %s", path, strerror(errno));
	while (!ret && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %511s", &addr, &type, name) != 3 || strchr(line, '['))
			continue;
		if (!strcmp(name, "_text"))
			text = addr;
		if (type == 't' || type == 'T')
			ret = kpc_ksyms_add(img, &cap, addr, name);
	}
	fclose(f);
	if (ret)
		return kpc_sites_fail(ret, err, errlen, "%s: %s", path, strerror(-ret));
	if (!text) {
		/* Addresses read as 0 without CAP_SYSLOG: no use for sites. */
		fprintf(stderr, "kprint sites: %s: _text at 0 (not root?): no functions\n",
			path);
		while (img->nksyms)
			free(img->ksyms[--img->nksyms].name);
		return 0;
	}
	img->kaslr = text - img->text_base;
	qsort(img->ksyms, img->nksyms, sizeof(*img->ksyms), kpc_ksym_cmp);
	return 0;
}

static void kpc_image_free(struct kpc_image *img)
{
	size_t i;

	for (i = 0; i < img->nksyms; i++)
		free(img->ksyms[i].name);
	free(img->ksyms);
	free(img->printers);
	free(img->taken);
	if (img->e)
		elf_end(img->e);
	free(img->elf);
}

int kpc_sites_scan_image(const char *image, const char *kallsyms, struct kpc_sites *out,
			 char *err, size_t errlen)
{
	struct kpc_image img = { .out = out };
	unsigned int i;
	int ret;

	ret = kpc_image_payload(image, &img, err, errlen);
	if (!ret)
		ret = kpc_image_sections(&img, image, err, errlen);
	if (!ret && kallsyms)
		ret = kpc_image_kallsyms(&img, kallsyms, err, errlen);
	if (ret)
		goto out;
	ret = kpc_image_exports(&img, &img.ksymtab);
	if (!ret)
		ret = kpc_image_exports(&img, &img.ksymtab_gpl);
	img.taken = calloc(img.rodata.size, 1);
	if (ret || !img.taken) {
		ret = kpc_sites_fail(-ENOMEM, err, errlen, "%s: out of memory", image);
		goto out;
	}
	if (!img.nprinters) {
		ret = kpc_sites_fail(-EINVAL, err, errlen, "%s: __ksymtab exports no _printk", image);
		goto out;
	}
	qsort(img.printers, img.nprinters, sizeof(*img.printers), kpc_printer_cmp);
	for (i = 0; !ret && i < img.ntext; i++)
		ret = kpc_image_scan_code(&img, &img.text[i]);
	if (!ret)
		ret = kpc_image_scan_rodata(&img);
	if (ret)
		kpc_sites_fail(ret, err, errlen, "%s: %s", image, strerror(-ret));
	else if (img.nksyms)
		out->kallsyms = true;
out:
	kpc_image_free(&img);
	return ret;
}

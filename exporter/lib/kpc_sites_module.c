// SPDX-License-Identifier: GPL-2.0
/*
 * The call-site catalog's reader of module files (kpc_sites_scan_module()).
 *
 * A module is a relocatable ELF file: its code does not hold the addresses
 * of its strings yet, its relocations name them.  A printk call site shows
 * as a relocation that loads a string (a section symbol of .rodata.str1.*
 * plus an addend) followed, a few bytes later, by a call relocation against
 * _printk, _dev_err, netdev_info and the like.  The symbol table says which
 * function holds the site, the dynamic debug descriptors (__dyndbg) give
 * pr_debug()'s formats with their function, and the KERN_SOH strings no code
 * names are formats kept in tables.
 *
 * Only x86_64 modules are read: the instruction bytes before a relocation
 * tell which argument register a string is loaded into.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpc_sites_scan.h"

/*
 * A string load and the call it is an argument of are this close at most:
 * a load into the format's register may come earlier (no call clobbers the
 * argument registers in between) than one whose register is not known.
 */
#define KPC_MOD_CALL_WINDOW	64
#define KPC_MOD_ARG_WINDOW	256
/* String loads remembered between two calls (a call takes at most a few). */
#define KPC_MOD_PENDING		8
/* Relocations in each struct _ddebug: modname, function, filename, format. */
#define KPC_MOD_DDEBUG_RELOCS	4
#define KPC_MOD_DDEBUG_FUNCTION	8
#define KPC_MOD_DDEBUG_FORMAT	24
#define KPC_MOD_LEVEL_DEBUG	7

enum kpc_mod_strsec {
	KPC_MOD_NOT_STRINGS,
	KPC_MOD_MERGED_STRINGS,	/* .rodata.str1.*: only NUL-terminated strings */
	KPC_MOD_RODATA,		/* .rodata: strings among other constants */
};

/* A function symbol, to find the one holding a call site. */
struct kpc_mod_func {
	size_t shndx;
	uint64_t value, size;
	size_t symidx;
	const char *name;
};

/* What a code relocation loads: a string or a dynamic debug descriptor. */
struct kpc_mod_load {
	uint64_t off;		/* in the code section */
	int reg;		/* argument (0 rdi, 1 rsi, 2 rdx, ...), see kpc_mod_argument() */
	size_t shndx;		/* the string's section */
	uint64_t soff;		/* and offset in it */
	const char *s;		/* NULL: a descriptor, index @ddebug */
	size_t ddebug;
};

/* Calls besides the printers that a call site is told by. */
enum kpc_mod_callee {
	KPC_MOD_CALL_OTHER,
	KPC_MOD_CALL_PRINTER,
	KPC_MOD_CALL_DYN_PR,
	KPC_MOD_CALL_DYN_DEV,
	KPC_MOD_CALL_DYN_NETDEV,
};

struct kpc_mod {
	char module[64];
	struct kpc_sites *out;
	Elf *elf;
	size_t shnum;
	GElf_Shdr *sh;
	const char **names;	/* section names */
	Elf_Data **data;	/* section contents, read when first needed */
	unsigned char *strsec;	/* enum kpc_mod_strsec per section */
	unsigned char **named;	/* per string section: offsets code loads */
	Elf_Data *symtab;
	size_t nsyms, symstr;
	signed char *callee;	/* per symbol: enum kpc_mod_callee, -1 not known yet */
	const struct kpc_sites_printer **printer;	/* per symbol, with callee */
	struct kpc_mod_func *funcs;
	size_t nfuncs;
	size_t dd_shndx;	/* __dyndbg, 0 if none */
	size_t dd_size, dd_count;
	unsigned char *dd_kind;	/* per descriptor: enum kpc_site_kind */
	struct kpc_mod_load pending[KPC_MOD_PENDING];
	unsigned int npending;
};

static pthread_once_t kpc_mod_elf_once = PTHREAD_ONCE_INIT;

static void kpc_mod_elf_init(void)
{
	elf_version(EV_CURRENT);
}

static const unsigned char *kpc_mod_bytes(struct kpc_mod *m, size_t shndx, size_t *len)
{
	if (!shndx || shndx >= m->shnum || m->sh[shndx].sh_type == SHT_NOBITS)
		return NULL;
	if (!m->data[shndx]) {
		Elf_Scn *scn = elf_getscn(m->elf, shndx);

		m->data[shndx] = scn ? elf_getdata(scn, NULL) : NULL;
		if (!m->data[shndx])
			return NULL;
	}
	*len = m->data[shndx]->d_size;
	return m->data[shndx]->d_buf;
}

/* Text as a format holds it: no control characters but SOH, tab and newline. */
static bool kpc_mod_printable(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if ((c < 0x20 && c != '\n' && c != '\t' && c != '\001') || c == 0x7f)
			return false;
	}
	return true;
}

/* The NUL-terminated string at @off of a string section, or NULL. */
static const char *kpc_mod_string(struct kpc_mod *m, size_t shndx, uint64_t off, size_t *n)
{
	const unsigned char *b;
	const char *s, *end;
	size_t len;

	if (shndx >= m->shnum || m->strsec[shndx] == KPC_MOD_NOT_STRINGS)
		return NULL;
	b = kpc_mod_bytes(m, shndx, &len);
	if (!b || off >= len)
		return NULL;
	s = (const char *)b + off;
	end = memchr(s, '\0', len - off);
	if (!end)
		return NULL;
	*n = end - s;
	if (m->strsec[shndx] == KPC_MOD_RODATA && (!*n || !kpc_mod_printable(s, *n)))
		return NULL;
	return s;
}

static int kpc_mod_add(struct kpc_mod *m, const char *s, size_t n, int level,
		       const char *function, enum kpc_site_kind kind)
{
	const char *fmt;
	size_t len;
	int own = kpc_sites_strip(s, n, &fmt, &len);

	if (own != KPC_SITE_LEVEL_NONE && (level == KPC_SITE_LEVEL_NONE || kind == KPC_SITE_PRINTK))
		level = own;
	return kpc_sites_add_found(m->out, fmt, len, level, m->module, function, kind,
				   KPC_SITE_SRC_MODULE);
}

static int kpc_mod_func_cmp(const void *pa, const void *pb)
{
	const struct kpc_mod_func *a = pa, *b = pb;

	if (a->shndx != b->shndx)
		return a->shndx < b->shndx ? -1 : 1;
	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	return a->symidx < b->symidx ? -1 : a->symidx > b->symidx;
}

/* The function symbols, sorted by section and address, for kpc_mod_function(). */
static int kpc_mod_read_symbols(struct kpc_mod *m)
{
	size_t i;

	for (i = 1; i < m->shnum; i++) {
		if (m->sh[i].sh_type != SHT_SYMTAB)
			continue;
		m->symtab = elf_getdata(elf_getscn(m->elf, i), NULL);
		m->symstr = m->sh[i].sh_link;
		m->nsyms = m->sh[i].sh_entsize ? m->sh[i].sh_size / m->sh[i].sh_entsize : 0;
		break;
	}
	if (!m->symtab)
		return 0;
	m->callee = malloc(m->nsyms);
	m->printer = malloc(m->nsyms * sizeof(*m->printer));
	m->funcs = malloc(m->nsyms * sizeof(*m->funcs));
	if (!m->callee || !m->printer || !m->funcs)
		return -ENOMEM;
	memset(m->callee, -1, m->nsyms);
	for (i = 1; i < m->nsyms; i++) {
		struct kpc_mod_func *f = &m->funcs[m->nfuncs];
		GElf_Sym sym;

		if (!gelf_getsym(m->symtab, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= m->shnum)
			continue;
		f->name = elf_strptr(m->elf, m->symstr, sym.st_name);
		if (!f->name || !*f->name)
			continue;
		f->shndx = sym.st_shndx;
		f->value = sym.st_value;
		f->size = sym.st_size;
		f->symidx = i;
		m->nfuncs++;
	}
	qsort(m->funcs, m->nfuncs, sizeof(*m->funcs), kpc_mod_func_cmp);
	return 0;
}

/*
 * The function holding offset @off of code section @shndx, as %pS names
 * it: the symbol with the greatest address at or below it that covers it,
 * the first in the symbol table of those at the same address (as the
 * kernel's module kallsyms picks: the local brd_exit before its alias
 * cleanup_module).
 */
static const char *kpc_mod_function(const struct kpc_mod *m, size_t shndx, uint64_t off)
{
	size_t lo = 0, hi = m->nfuncs, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct kpc_mod_func *f = &m->funcs[mid];

		if (f->shndx < shndx || (f->shndx == shndx && f->value <= off))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || m->funcs[lo - 1].shndx != shndx)
		return NULL;
	i = lo - 1;
	while (i && m->funcs[i - 1].shndx == shndx && m->funcs[i - 1].value == m->funcs[i].value)
		i--;
	for (; i < lo; i++)
		if (off < m->funcs[i].value + m->funcs[i].size)
			return m->funcs[i].name;
	return NULL;
}

/* Which kind of function symbol @symidx is, looked up once per symbol. */
static enum kpc_mod_callee kpc_mod_callee(struct kpc_mod *m, size_t symidx,
					  const struct kpc_sites_printer **printer)
{
	static const char *const dynamic[] = {
		[KPC_MOD_CALL_DYN_PR] = "__dynamic_pr_debug",
		[KPC_MOD_CALL_DYN_DEV] = "__dynamic_dev_dbg",
		[KPC_MOD_CALL_DYN_NETDEV] = "__dynamic_netdev_dbg",
	};
	const char *name = NULL;
	GElf_Sym sym;
	int i;

	if (m->callee[symidx] < 0) {
		m->callee[symidx] = KPC_MOD_CALL_OTHER;
		if (gelf_getsym(m->symtab, symidx, &sym) && sym.st_shndx == SHN_UNDEF)
			name = elf_strptr(m->elf, m->symstr, sym.st_name);
		m->printer[symidx] = name ? kpc_sites_printer(name) : NULL;
		if (m->printer[symidx])
			m->callee[symidx] = KPC_MOD_CALL_PRINTER;
		for (i = KPC_MOD_CALL_DYN_PR; name && i <= KPC_MOD_CALL_DYN_NETDEV; i++)
			if (!strcmp(name, dynamic[i]))
				m->callee[symidx] = i;
	}
	*printer = m->printer[symidx];
	return m->callee[symidx];
}

/*
 * The argument an instruction ending in a relocation loads, by its
 * register: 0 to 5 for rdi, rsi, rdx, rcx, r8, r9, 6 for another
 * register, -1 for an instruction not decoded.  The forms are
 * mov $imm32,%r64 (REX.W c7 /0), lea disp(%rip),%r64 (REX.W 8d, ModRM
 * 00 reg 101) and mov $imm32,%r32 (b8+r, with or without REX.B).
 */
static int kpc_mod_argument(unsigned int reg)
{
	/* By register number: rax rcx rdx rbx rsp rbp rsi rdi, then r8..r15. */
	static const signed char arg[16] = { 6, 3, 2, 6, 6, 6, 1, 0, 4, 5, 6, 6, 6, 6, 6, 6 };

	return arg[reg & 15];
}

static int kpc_mod_load_register(const unsigned char *code, size_t len, uint64_t off)
{
	unsigned char op, modrm, rex;

	if (off < 3 || off > len)
		return -1;
	op = code[off - 1];
	if (op >= 0xb8 && op <= 0xbf)
		return kpc_mod_argument((op - 0xb8) | (code[off - 2] == 0x41 ? 8 : 0));
	rex = code[off - 3];
	modrm = code[off - 1];
	if ((rex & 0xf8) != 0x48)
		return -1;
	if (code[off - 2] == 0xc7 && (modrm & 0xf8) == 0xc0)
		return kpc_mod_argument((modrm & 7) | (rex & 1 ? 8 : 0));
	if (code[off - 2] == 0x8d && (modrm & 0xc7) == 0x05)
		return kpc_mod_argument(((modrm >> 3) & 7) | (rex & 4 ? 8 : 0));
	return -1;
}

/*
 * Whether a string loaded into the format's register before the last
 * such load is a format too.  One call may serve several formats ("if (x)
 * pr_err(a); else pr_err(b);" can compile to two loads, a jump and one
 * call), but the register is also where a conditional move picks an
 * argument from two strings ("?" or a name): a format, unlike those,
 * ends its line (or starts with KERN_SOH).
 */
static bool kpc_mod_looks_like_format(const char *s)
{
	size_t n = strlen(s);

	return n > 1 && (s[0] == '\001' || s[n - 1] == '\n');
}

/*
 * The loads a printer's call takes as its format: the last string loaded
 * into its format argument's register since the call before, with the
 * earlier ones that look like formats, else the last string loaded into
 * a register not known (never one known to be another argument's).  The
 * others are
 * marked as named too: they are the call's other arguments (dev_printk()'s
 * level, a "%s" argument), not formats of their own.  Returns how many of
 * @chosen it filled.
 */
static unsigned int kpc_mod_format_loads(struct kpc_mod *m, uint64_t call, unsigned int fmt_arg,
					 const struct kpc_mod_load **chosen)
{
	const struct kpc_mod_load *last = NULL;
	unsigned int i, n = 0;

	for (i = 0; i < m->npending; i++) {
		const struct kpc_mod_load *l = &m->pending[i];

		if (!l->s || call - l->off > KPC_MOD_ARG_WINDOW)
			continue;
		m->named[l->shndx][l->soff] = 1;
		if (l->reg == (int)fmt_arg) {
			if (n && !kpc_mod_looks_like_format(chosen[n - 1]->s))
				n--;
			chosen[n++] = l;
		} else if (l->reg < 0 && call - l->off <= KPC_MOD_CALL_WINDOW) {
			last = l;
		}
	}
	if (!n && last)
		chosen[n++] = last;
	return n;
}

/* dev_printk() and netdev_printk() take their level as a KERN_SOH string in rdi. */
static int kpc_mod_level_argument(const struct kpc_mod *m, uint64_t call)
{
	const char *fmt;
	size_t len;
	unsigned int i;

	for (i = 0; i < m->npending; i++) {
		const struct kpc_mod_load *l = &m->pending[i];

		if (l->s && l->reg == 0 && call - l->off <= KPC_MOD_ARG_WINDOW)
			return kpc_sites_strip(l->s, strlen(l->s), &fmt, &len);
	}
	return KPC_SITE_LEVEL_NONE;
}

static int kpc_mod_printer_call(struct kpc_mod *m, size_t shndx, uint64_t call,
				const struct kpc_sites_printer *p)
{
	const struct kpc_mod_load *chosen[KPC_MOD_PENDING];
	unsigned int n, i;
	int level = p->level, err = 0;

	if (level == KPC_SITE_LEVEL_NONE && p->kind != KPC_SITE_PRINTK_BARE)
		level = kpc_mod_level_argument(m, call);
	n = kpc_mod_format_loads(m, call, p->fmt_arg, chosen);
	for (i = 0; i < n && !err; i++) {
		const struct kpc_mod_load *l = chosen[i];
		enum kpc_site_kind kind = p->kind;

		if (kind == KPC_SITE_PRINTK_BARE && l->s[0] == '\001')
			kind = KPC_SITE_PRINTK;
		err = kpc_mod_add(m, l->s, strlen(l->s), level,
				  kpc_mod_function(m, shndx, l->off), kind);
	}
	return err;
}

/* A call to __dynamic_dev_dbg() and the like tells its descriptor's kind. */
static void kpc_mod_dynamic_call(struct kpc_mod *m, uint64_t call, enum kpc_mod_callee c)
{
	unsigned int i;

	for (i = 0; i < m->npending; i++) {
		const struct kpc_mod_load *l = &m->pending[i];

		if (l->s || l->reg != 0 || call - l->off > KPC_MOD_ARG_WINDOW ||
		    l->ddebug >= m->dd_count)
			continue;
		m->dd_kind[l->ddebug] = c == KPC_MOD_CALL_DYN_DEV ? KPC_SITE_DEV :
					c == KPC_MOD_CALL_DYN_NETDEV ? KPC_SITE_NETDEV :
					KPC_SITE_PRINTK;
	}
}

/*
 * The strings loaded before a call that took none of them: a KERN_SOH
 * string among them is a format all the same (printk_deferred(), a
 * driver's own wrapper), printed from the function that loads it.
 */
static int kpc_mod_flush(struct kpc_mod *m, size_t shndx)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < m->npending && !err; i++) {
		const struct kpc_mod_load *l = &m->pending[i];
		const char *fmt;
		size_t n, len;

		if (!l->s || m->named[l->shndx][l->soff])
			continue;
		m->named[l->shndx][l->soff] = 1;
		n = strlen(l->s);
		if (kpc_sites_strip(l->s, n, &fmt, &len) == KPC_SITE_LEVEL_NONE || !len)
			continue;
		err = kpc_mod_add(m, l->s, n, KPC_SITE_LEVEL_NONE,
				  kpc_mod_function(m, shndx, l->off), KPC_SITE_PRINTK);
	}
	m->npending = 0;
	return err;
}

/* A call or tail call: call rel32 (e8), jmp rel32 (e9), jcc rel32 (0f 8x). */
static bool kpc_mod_is_branch(const unsigned char *code, size_t len, uint64_t off,
			      unsigned int type)
{
	if (type == R_X86_64_PLT32)
		return true;
	if (type != R_X86_64_PC32 || off < 2 || off > len)
		return false;
	return code[off - 1] == 0xe8 || code[off - 1] == 0xe9 ||
	       (code[off - 2] == 0x0f && (code[off - 1] & 0xf0) == 0x80);
}

/* Remembers what a relocation loads, if it is a string or a descriptor. */
static void kpc_mod_note_load(struct kpc_mod *m, const unsigned char *code, size_t len,
			      const GElf_Rela *r, const GElf_Sym *sym)
{
	unsigned int type = GELF_R_TYPE(r->r_info);
	struct kpc_mod_load l = { .off = r->r_offset, .shndx = sym->st_shndx };
	int64_t target = (int64_t)sym->st_value + r->r_addend;
	size_t n;

	if (type == R_X86_64_PC32)
		target += 4;
	else if (type != R_X86_64_32S && type != R_X86_64_32)
		return;
	if (target < 0)
		return;
	l.soff = target;
	if (l.shndx && l.shndx == m->dd_shndx) {
		l.ddebug = l.soff / m->dd_size;
	} else {
		l.s = kpc_mod_string(m, l.shndx, l.soff, &n);
		if (!l.s)
			return;
	}
	l.reg = kpc_mod_load_register(code, len, l.off);
	/* .rodata holds numbers too: only an address taken is a string's. */
	if (l.reg < 0 && m->strsec[l.shndx] == KPC_MOD_RODATA)
		return;
	if (m->npending == KPC_MOD_PENDING) {
		memmove(m->pending, m->pending + 1, sizeof(m->pending) - sizeof(m->pending[0]));
		m->npending--;
	}
	m->pending[m->npending++] = l;
}

static int kpc_mod_rela_cmp(const void *pa, const void *pb)
{
	const GElf_Rela *a = pa, *b = pb;

	return a->r_offset < b->r_offset ? -1 : a->r_offset > b->r_offset;
}

/* The relocations of one RELA section, sorted by offset. */
static GElf_Rela *kpc_mod_relas(struct kpc_mod *m, size_t rela, size_t *count)
{
	Elf_Data *d = elf_getdata(elf_getscn(m->elf, rela), NULL);
	GElf_Rela *v;
	bool sorted = true;
	size_t i, n;

	/* A section libelf cannot read has no relocation to offer. */
	*count = 0;
	n = d && m->sh[rela].sh_entsize ? m->sh[rela].sh_size / m->sh[rela].sh_entsize : 0;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < n; i++) {
		if (!gelf_getrela(d, i, &v[i]))
			break;
		if (i && v[i].r_offset < v[i - 1].r_offset)
			sorted = false;
	}
	if (!sorted)
		qsort(v, i, sizeof(*v), kpc_mod_rela_cmp);
	*count = i;
	return v;
}

/* One code section's relocations: string loads paired with the calls after them. */
static int kpc_mod_scan_code(struct kpc_mod *m, size_t rela, size_t shndx)
{
	const unsigned char *code;
	size_t len, n, i;
	GElf_Rela *v;
	int err = 0;

	code = kpc_mod_bytes(m, shndx, &len);
	v = code ? kpc_mod_relas(m, rela, &n) : NULL;
	if (!v)
		return code ? -ENOMEM : 0;
	m->npending = 0;
	for (i = 0; i < n && !err; i++) {
		size_t symidx = GELF_R_SYM(v[i].r_info);
		const struct kpc_sites_printer *p;
		enum kpc_mod_callee c;
		GElf_Sym sym;

		if (!symidx || symidx >= m->nsyms || !gelf_getsym(m->symtab, symidx, &sym))
			continue;
		if (!kpc_mod_is_branch(code, len, v[i].r_offset, GELF_R_TYPE(v[i].r_info))) {
			if (sym.st_shndx != SHN_UNDEF && sym.st_shndx < m->shnum)
				kpc_mod_note_load(m, code, len, &v[i], &sym);
			continue;
		}
		c = kpc_mod_callee(m, symidx, &p);
		if (c == KPC_MOD_CALL_PRINTER)
			err = kpc_mod_printer_call(m, shndx, v[i].r_offset, p);
		else if (c != KPC_MOD_CALL_OTHER)
			kpc_mod_dynamic_call(m, v[i].r_offset, c);
		if (!err)
			err = kpc_mod_flush(m, shndx);
	}
	if (!err)
		err = kpc_mod_flush(m, shndx);
	free(v);
	return err;
}

/*
 * The dynamic debug descriptors: four pointers (modname, function,
 * filename, format), each relocated, then lineno and flags, then the
 * static key; the same layout in 6.1 and 6.12.  Their size follows from
 * the section's size and the number of relocations, four per descriptor.
 */
static void kpc_mod_find_ddebug(struct kpc_mod *m)
{
	size_t i, n;

	for (i = 1; i < m->shnum && !m->dd_shndx; i++) {
		const GElf_Shdr *sh = &m->sh[i];

		if (sh->sh_type != SHT_RELA || sh->sh_info >= m->shnum || !sh->sh_entsize)
			continue;
		n = sh->sh_size / sh->sh_entsize / KPC_MOD_DDEBUG_RELOCS;
		if (!n || m->sh[sh->sh_info].sh_size % n)
			continue;
		if (!strcmp(m->names[sh->sh_info], "__dyndbg")) {
			m->dd_shndx = sh->sh_info;
			m->dd_count = n;
			m->dd_size = m->sh[sh->sh_info].sh_size / n;
		}
	}
	if (m->dd_size < KPC_MOD_DDEBUG_FORMAT + 8) {
		m->dd_shndx = 0;
		m->dd_count = 0;
		return;
	}
	m->dd_kind = calloc(m->dd_count, 1);
	if (!m->dd_kind)
		m->dd_count = 0;
}

/* The string a descriptor's relocation at @field points at, or NULL. */
static const char *kpc_mod_ddebug_string(struct kpc_mod *m, const GElf_Rela *r)
{
	GElf_Sym sym;
	size_t n;

	if (GELF_R_TYPE(r->r_info) != R_X86_64_64 || GELF_R_SYM(r->r_info) >= m->nsyms ||
	    !gelf_getsym(m->symtab, GELF_R_SYM(r->r_info), &sym) ||
	    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= m->shnum ||
	    (int64_t)sym.st_value + r->r_addend < 0)
		return NULL;
	return kpc_mod_string(m, sym.st_shndx, sym.st_value + r->r_addend, &n);
}

/* pr_debug(), dev_dbg(), netdev_dbg(): a descriptor each, level debug. */
static int kpc_mod_scan_ddebug(struct kpc_mod *m, size_t rela)
{
	const char **function, **format;
	GElf_Rela *v;
	size_t n, i;
	int err = 0;

	v = kpc_mod_relas(m, rela, &n);
	function = calloc(m->dd_count, sizeof(*function));
	format = calloc(m->dd_count, sizeof(*format));
	if (!v || !function || !format) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		size_t idx = v[i].r_offset / m->dd_size;
		size_t field = v[i].r_offset % m->dd_size;

		if (idx >= m->dd_count)
			continue;
		if (field == KPC_MOD_DDEBUG_FUNCTION)
			function[idx] = kpc_mod_ddebug_string(m, &v[i]);
		else if (field == KPC_MOD_DDEBUG_FORMAT)
			format[idx] = kpc_mod_ddebug_string(m, &v[i]);
	}
	for (i = 0; i < m->dd_count && !err; i++)
		if (format[i])
			err = kpc_mod_add(m, format[i], strlen(format[i]), KPC_MOD_LEVEL_DEBUG,
					  function[i], m->dd_kind[i]);
out:
	free(v);
	free(function);
	free(format);
	return err;
}

/* KERN_SOH strings no code loads: tables of messages, formats kept in data. */
static int kpc_mod_scan_unnamed(struct kpc_mod *m, size_t shndx)
{
	const unsigned char *b;
	const char *s, *fmt;
	size_t len, off, n, flen;
	int err = 0;

	b = kpc_mod_bytes(m, shndx, &len);
	for (off = 0; b && off + 1 < len && !err; off++) {
		if (b[off] != '\001' || (off && b[off - 1]) || m->named[shndx][off])
			continue;
		s = kpc_mod_string(m, shndx, off, &n);
		if (!s || kpc_sites_strip(s, n, &fmt, &flen) == KPC_SITE_LEVEL_NONE || !flen)
			continue;
		err = kpc_mod_add(m, s, n, KPC_SITE_LEVEL_NONE, NULL, KPC_SITE_PRINTK);
	}
	return err;
}

/* Read-only data sections: where a string a call site loads can be. */
static enum kpc_mod_strsec kpc_mod_classify(const GElf_Shdr *sh, const char *name)
{
	if (sh->sh_type != SHT_PROGBITS || !(sh->sh_flags & SHF_ALLOC) ||
	    (sh->sh_flags & (SHF_WRITE | SHF_EXECINSTR)))
		return KPC_MOD_NOT_STRINGS;
	if (!strncmp(name, ".rodata.str", 11) || (sh->sh_flags & SHF_STRINGS))
		return KPC_MOD_MERGED_STRINGS;
	if (!strncmp(name, ".rodata", 7) || !strncmp(name, ".init.rodata", 12))
		return KPC_MOD_RODATA;
	return KPC_MOD_NOT_STRINGS;
}

/* The section headers, their names, and a map per string section. */
static int kpc_mod_read_sections(struct kpc_mod *m)
{
	size_t shstrndx, i;
	GElf_Ehdr eh;

	if (elf_kind(m->elf) != ELF_K_ELF || !gelf_getehdr(m->elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_REL ||
	    eh.e_machine != EM_X86_64 || elf_getshdrnum(m->elf, &m->shnum) || elf_getshdrstrndx(m->elf, &shstrndx))
		return -EINVAL;
	m->sh = calloc(m->shnum, sizeof(*m->sh));
	m->names = calloc(m->shnum, sizeof(*m->names));
	m->data = calloc(m->shnum, sizeof(*m->data));
	m->strsec = calloc(m->shnum, 1);
	m->named = calloc(m->shnum, sizeof(*m->named));
	if (!m->sh || !m->names || !m->data || !m->strsec || !m->named)
		return -ENOMEM;
	for (i = 1; i < m->shnum; i++) {
		Elf_Scn *scn = elf_getscn(m->elf, i);

		if (!scn || !gelf_getshdr(scn, &m->sh[i]))
			return -EINVAL;
		m->names[i] = elf_strptr(m->elf, shstrndx, m->sh[i].sh_name);
		if (!m->names[i])
			m->names[i] = "";
		m->strsec[i] = kpc_mod_classify(&m->sh[i], m->names[i]);
		if (m->strsec[i] == KPC_MOD_NOT_STRINGS)
			continue;
		m->named[i] = calloc(m->sh[i].sh_size + 1, 1);
		if (!m->named[i])
			return -ENOMEM;
	}
	return 0;
}

static bool kpc_mod_is_code_rela(const struct kpc_mod *m, size_t i)
{
	const GElf_Shdr *sh = &m->sh[i];

	return sh->sh_type == SHT_RELA && sh->sh_info && sh->sh_info < m->shnum &&
	       (m->sh[sh->sh_info].sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) ==
	       (SHF_ALLOC | SHF_EXECINSTR);
}

static int kpc_mod_scan(struct kpc_mod *m)
{
	size_t i;
	int err;

	err = kpc_mod_read_sections(m);
	if (!err)
		err = kpc_mod_read_symbols(m);
	if (err || !m->symtab)
		return err;
	kpc_mod_find_ddebug(m);
	for (i = 1; i < m->shnum && !err; i++)
		if (kpc_mod_is_code_rela(m, i))
			err = kpc_mod_scan_code(m, i, m->sh[i].sh_info);
	for (i = 1; i < m->shnum && !err; i++)
		if (m->dd_count && m->sh[i].sh_type == SHT_RELA && m->sh[i].sh_info == m->dd_shndx)
			err = kpc_mod_scan_ddebug(m, i);
	for (i = 1; i < m->shnum && !err; i++)
		if (m->strsec[i] != KPC_MOD_NOT_STRINGS)
			err = kpc_mod_scan_unnamed(m, i);
	return err;
}

static void kpc_mod_free(struct kpc_mod *m)
{
	size_t i;

	for (i = 0; m->named && i < m->shnum; i++)
		free(m->named[i]);
	free(m->named);
	free(m->strsec);
	free(m->data);
	free(m->names);
	free(m->sh);
	free(m->callee);
	free(m->printer);
	free(m->funcs);
	free(m->dd_kind);
	if (m->elf)
		elf_end(m->elf);
}

int kpc_sites_scan_module(const char *path, struct kpc_sites *out, char *err, size_t errlen)
{
	struct kpc_mod m = { .out = out };
	size_t len;
	void *buf;
	int ret;

	ret = kpc_sites_read_file(path, &buf, &len, err, errlen);
	if (ret)
		return ret;
	pthread_once(&kpc_mod_elf_once, kpc_mod_elf_init);
	kpc_sites_module_name(path, m.module, sizeof(m.module));
	m.elf = elf_memory(buf, len);
	ret = m.elf ? kpc_mod_scan(&m) : -EINVAL;
	if (ret == -EINVAL)
		kpc_sites_fail(ret, err, errlen, "%s: not an x86_64 module (a relocatable ELF file)",
			       path);
	else if (ret)
		kpc_sites_fail(ret, err, errlen, "%s: %s", path, strerror(-ret));
	kpc_mod_free(&m);
	free(buf);
	return ret;
}

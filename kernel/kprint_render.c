// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: splitting a printf-style call into rendered arguments.
 *
 * The format is walked token by token exactly the way lib/vsprintf.c's
 * format_decode() walks it.  Each conversion specification is copied out
 * and handed, with the value pulled from the va_list at the C type the
 * specification implies, to the kernel's own snprintf().  So every argument
 * (including %pS, %pI4, widths and flags) comes out exactly as printk would
 * print it, and literal runs plus rendered arguments concatenate to what
 * vsnprintf() produces for the whole format.  Only the plainest integer and
 * string conversions, whose output leaves no room for interpretation, skip
 * snprintf(): see kprint_render_plain().
 */

#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/string.h>

#include <asm/word-at-a-time.h>

#include "kprint_render.h"
#include "kprint_render_plain.h"

/*
 * Longest conversion specification we copy out.  Real ones are a handful
 * of characters; a longer one is treated like an invalid specification.
 */
#define KPRINT_SPEC_MAX		64

/*
 * The bytes before the first '%' or NUL at @p.  Formats are mostly literal
 * text, and scanning it a byte at a time was a good part of rendering's
 * cost; past the unaligned head this reads aligned words, as strscpy()
 * does, which never reach past the page holding the terminating NUL.
 */
static size_t kprint_fmt_literal_len(const char *p)
{
	const struct word_at_a_time constants = WORD_AT_A_TIME_CONSTANTS;
	const unsigned long percents = REPEAT_BYTE('%');
	unsigned long w, zeros, marks;
	size_t len = 0;

	for (; !IS_ALIGNED((unsigned long)(p + len), sizeof(long)); len++)
		if (!p[len] || p[len] == '%')
			return len;
	for (;; len += sizeof(long)) {
		w = read_word_at_a_time(p + len);
		if (has_zero(w, &zeros, &constants) |
		    has_zero(w ^ percents, &marks, &constants))
			break;
	}
	/* Each mask's lowest byte is right; only later ones may be false. */
	zeros = prep_zero_mask(w, zeros, &constants) |
		prep_zero_mask(w ^ percents, marks, &constants);
	return len + find_zero(create_zero_mask(zeros));
}

/* Skips flags, width and precision at @p, noting a '*' in @spec. */
static const char *kprint_fmt_skip_width(const char *p,
					 struct kprint_fmt_spec *spec)
{
	while (*p == '-' || *p == '+' || *p == ' ' || *p == '#' || *p == '0')
		p++;

	if (isdigit(*p)) {
		while (isdigit(*p))
			p++;
	} else if (*p == '*') {
		spec->star_width = true;
		p++;
	}

	if (*p == '.') {
		p++;
		if (isdigit(*p)) {
			while (isdigit(*p))
				p++;
		} else if (*p == '*') {
			spec->star_prec = true;
			p++;
		}
	}
	return p;
}

/* An integer's type: length @q ('L' for ll, 'H' for hh), @sign: d, i. */
static enum kprint_fmt_type kprint_fmt_int_type(char q, bool sign)
{
	switch (q) {
	case 'L':
		return KPRINT_FMT_LLONG;
	case 'l':
		return sign ? KPRINT_FMT_LONG : KPRINT_FMT_ULONG;
	case 'z':
		return sign ? KPRINT_FMT_SSIZE : KPRINT_FMT_SIZE;
	case 't':
		return KPRINT_FMT_PTRDIFF;
	default:
		/* hh and h are passed promoted to int, like plain ints. */
		return sign ? KPRINT_FMT_INT : KPRINT_FMT_UINT;
	}
}

/**
 * kprint_fmt_decode() - classify the next token of a format
 * @fmt: where to continue in the format
 * @spec: filled in with the token's type and its '*' fields
 *
 * Mirrors format_decode() of Linux 6.1: flags "-+ #0", a width (digits or
 * '*'), a precision ('.' then digits or '*'), the length qualifiers hh h l
 * ll L z t, and the conversions c s p d i o u x X %.  After %p every
 * following alphanumeric character belongs to the pointer extension, as in
 * vsnprintf().  %n and anything unknown are KPRINT_FMT_INVALID, where
 * vsnprintf() stops producing output.
 *
 * Context: Any context.
 * Return: bytes of @fmt the token covers; 0 at the end of the format.
 */
unsigned int kprint_fmt_decode(const char *fmt, struct kprint_fmt_spec *spec)
{
	const char *p = fmt;
	bool sign = false;
	char q = 0;

	spec->star_width = false;
	spec->star_prec = false;

	if (!*p) {
		spec->type = KPRINT_FMT_END;
		return 0;
	}
	if (*p != '%') {
		spec->type = KPRINT_FMT_LITERAL;
		return kprint_fmt_literal_len(p);
	}

	p = kprint_fmt_skip_width(p + 1, spec);

	if (*p == 'h' || _tolower(*p) == 'l' || *p == 'z' || *p == 't') {
		q = *p++;
		if (q == *p && (q == 'l' || q == 'h')) {
			q = q == 'l' ? 'L' : 'H';
			p++;
		}
	}

	switch (*p) {
	case 'c':
		spec->type = KPRINT_FMT_CHAR;
		return p + 1 - fmt;
	case 's':
		spec->type = KPRINT_FMT_STR;
		return p + 1 - fmt;
	case 'p':
		spec->type = KPRINT_FMT_PTR;
		p++;
		while (isalnum(*p))
			p++;
		return p - fmt;
	case '%':
		spec->type = KPRINT_FMT_PERCENT;
		return p + 1 - fmt;
	case 'o':
	case 'x':
	case 'X':
	case 'u':
		break;
	case 'd':
	case 'i':
		sign = true;
		break;
	default:
		spec->type = KPRINT_FMT_INVALID;
		return p - fmt;
	}

	spec->type = kprint_fmt_int_type(q, sign);
	return p + 1 - fmt;
}

/* One argument, pulled from the va_list at its real type. */
union kprint_val {
	int i;
	unsigned int u;
	long l;
	unsigned long ul;
	long long ll;
	size_t z;
	ssize_t sz;
	ptrdiff_t t;
	const void *p;
};

struct kprint_arg {
	const char *spec;
	const struct kprint_fmt_spec *fs;
	int width;
	int prec;
	union kprint_val val;
};

/* snprintf() with the '*' values in front of the argument, if any. */
#define __kprint_snprintf(buf, size, a, v)				\
	((a)->fs->star_width && (a)->fs->star_prec ?			\
	 snprintf(buf, size, (a)->spec, (a)->width, (a)->prec, v) :	\
	 (a)->fs->star_width ?						\
	 snprintf(buf, size, (a)->spec, (a)->width, v) :		\
	 (a)->fs->star_prec ?						\
	 snprintf(buf, size, (a)->spec, (a)->prec, v) :			\
	 snprintf(buf, size, (a)->spec, v))

static int kprint_arg_print(char *buf, size_t size, const struct kprint_arg *a)
{
	switch (a->fs->type) {
	case KPRINT_FMT_CHAR:
	case KPRINT_FMT_INT:
		return __kprint_snprintf(buf, size, a, a->val.i);
	case KPRINT_FMT_UINT:
		return __kprint_snprintf(buf, size, a, a->val.u);
	case KPRINT_FMT_STR:
	case KPRINT_FMT_PTR:
		return __kprint_snprintf(buf, size, a, a->val.p);
	case KPRINT_FMT_LLONG:
		return __kprint_snprintf(buf, size, a, a->val.ll);
	case KPRINT_FMT_ULONG:
		return __kprint_snprintf(buf, size, a, a->val.ul);
	case KPRINT_FMT_LONG:
		return __kprint_snprintf(buf, size, a, a->val.l);
	case KPRINT_FMT_SIZE:
		return __kprint_snprintf(buf, size, a, a->val.z);
	case KPRINT_FMT_SSIZE:
		return __kprint_snprintf(buf, size, a, a->val.sz);
	case KPRINT_FMT_PTRDIFF:
		return __kprint_snprintf(buf, size, a, a->val.t);
	}
	return 0;
}

/* Both the argument and its place in the text. */
static void kprint_render_emit(struct kprint_builder *b, const char *s,
			       size_t len)
{
	kprint_rec_add_arg(b, s, len);
	kprint_rec_append_text(b, s, len);
}

/* Which plain conversion the specification @fmt of @n bytes is, if any. */
enum kprint_plain kprint_plain_kind(const char *fmt, unsigned int n,
				    const struct kprint_fmt_spec *fs)
{
	const char conv = fmt[n - 1];

	if (fs->star_width || fs->star_prec)
		return KPRINT_PLAIN_NONE;
	switch (n) {
	case 2:					/* %d */
		break;
	case 3:					/* %ld %zu */
		if (fmt[1] != 'l' && fmt[1] != 'z')
			return KPRINT_PLAIN_NONE;
		break;
	case 4:					/* %llu */
		if (fmt[1] != 'l' || fmt[2] != 'l')
			return KPRINT_PLAIN_NONE;
		break;
	default:
		return KPRINT_PLAIN_NONE;
	}

	if (fs->type == KPRINT_FMT_STR)
		return n == 2 ? KPRINT_PLAIN_STR : KPRINT_PLAIN_NONE;
	if (conv != 'd' && conv != 'i' && conv != 'u' && conv != 'x')
		return KPRINT_PLAIN_NONE;
	switch (fs->type) {
	case KPRINT_FMT_INT:
	case KPRINT_FMT_UINT:
	case KPRINT_FMT_LONG:
	case KPRINT_FMT_ULONG:
	case KPRINT_FMT_SSIZE:
	case KPRINT_FMT_SIZE:
	case KPRINT_FMT_LLONG:
		return KPRINT_PLAIN_INT;
	default:
		return KPRINT_PLAIN_NONE;
	}
}

/*
 * A plain integer's digits, written backwards to end at @end (room for 21
 * bytes before it).  Returns where they start.
 */
static char *kprint_plain_digits(char *end, const char *fmt, unsigned int n,
				 const struct kprint_fmt_spec *fs, u64 v)
{
	static const char hex[] = "0123456789abcdef";
	const char conv = fmt[n - 1];
	bool neg = false;
	char *p = end;

	switch (fs->type) {
	case KPRINT_FMT_INT:
	case KPRINT_FMT_LONG:
	case KPRINT_FMT_SSIZE:
		neg = (long long)v < 0;
		break;
	case KPRINT_FMT_LLONG:
		neg = (conv == 'd' || conv == 'i') && (long long)v < 0;
		break;
	default:
		break;
	}

	/* Negated as unsigned: right for the most negative value too. */
	if (neg)
		v = -v;
	if (conv == 'x') {
		do {
			*--p = hex[v & 15];
			v >>= 4;
		} while (v);
	} else {
		do {
			*--p = '0' + v % 10;
			v /= 10;
		} while (v);
	}
	if (neg)
		*--p = '-';
	return p;
}

/* Both the argument and its place in the text, for a plain integer. */
static void kprint_plain_emit_int(struct kprint_builder *b, const char *fmt,
				  unsigned int n,
				  const struct kprint_fmt_spec *fs, u64 v)
{
	char digits[KPRINT_PLAIN_INT_MAX + 3];
	char *end = digits + sizeof(digits);
	char *p = kprint_plain_digits(end, fmt, n, fs, v);

	kprint_render_emit(b, p, end - p);
}

/*
 * A plain conversion, rendered.
 *
 * Return: false, with nothing consumed, for any other specification.
 */
static bool kprint_render_plain(struct kprint_builder *b, const char *fmt,
				unsigned int n, const struct kprint_fmt_spec *fs,
				va_list *ap)
{
	const char *s;

	switch (kprint_plain_kind(fmt, n, fs)) {
	case KPRINT_PLAIN_STR:
		s = kprint_plain_str(va_arg(*ap, const char *));
		/* Longer than the text can hold is cut there, as vsnprintf() does. */
		kprint_render_emit(b, s, strnlen(s, KPRINT_TEXT_MAX));
		return true;
	case KPRINT_PLAIN_INT:
		kprint_plain_emit_int(b, fmt, n, fs, kprint_plain_int(fs, ap));
		return true;
	default:
		return false;
	}
}

/* Pulls @a's value from @ap at its real type; false for no value. */
static bool kprint_arg_pull(struct kprint_arg *a, va_list *ap)
{
	switch (a->fs->type) {
	case KPRINT_FMT_CHAR:
	case KPRINT_FMT_INT:
		a->val.i = va_arg(*ap, int);
		break;
	case KPRINT_FMT_UINT:
		a->val.u = va_arg(*ap, unsigned int);
		break;
	case KPRINT_FMT_STR:
	case KPRINT_FMT_PTR:
		a->val.p = va_arg(*ap, const void *);
		break;
	case KPRINT_FMT_LLONG:
		a->val.ll = va_arg(*ap, long long);
		break;
	case KPRINT_FMT_ULONG:
		a->val.ul = va_arg(*ap, unsigned long);
		break;
	case KPRINT_FMT_LONG:
		a->val.l = va_arg(*ap, long);
		break;
	case KPRINT_FMT_SIZE:
		a->val.z = va_arg(*ap, size_t);
		break;
	case KPRINT_FMT_SSIZE:
		a->val.sz = va_arg(*ap, ssize_t);
		break;
	case KPRINT_FMT_PTRDIFF:
		a->val.t = va_arg(*ap, ptrdiff_t);
		break;
	default:
		return false;
	}
	return true;
}

/*
 * A conversion kprint_render_plain() does not take, through snprintf().
 * A function of its own because the kernel may zero every local at
 * function entry (CONFIG_INIT_STACK_ALL_ZERO, Debian's default): @spec and
 * @a are 100 bytes that the plain conversions, most of them, never use.
 */
static noinline bool kprint_render_snprintf(struct kprint_builder *b,
					    const char *fmt, unsigned int n,
					    const struct kprint_fmt_spec *fs,
					    va_list *ap)
{
	char spec[KPRINT_SPEC_MAX];
	struct kprint_arg a = { .spec = spec, .fs = fs };
	size_t room;
	char *tail;
	int len;

	if (n >= sizeof(spec)) {
		/*
		 * Only the pointer extension may be cut: pointer() looks
		 * at its first few characters, never at 60 of them.
		 */
		if (fs->type != KPRINT_FMT_PTR ||
		    !strnchr(fmt, sizeof(spec) - 1, 'p')) {
			b->rec->flags |= KPRINT_RECORD_F_TRUNCATED;
			return false;
		}
		n = sizeof(spec) - 1;
	}
	memcpy(spec, fmt, n);
	spec[n] = '\0';

	if (fs->star_width)
		a.width = va_arg(*ap, int);
	if (fs->star_prec)
		a.prec = va_arg(*ap, int);

	if (!kprint_arg_pull(&a, ap))
		return false;

	len = kprint_arg_print(b->argbuf, KPRINT_ARG_MAX, &a);
	if (len < KPRINT_ARG_MAX) {
		kprint_rec_add_arg(b, b->argbuf, len);
		kprint_rec_append_text(b, b->argbuf, len);
		return true;
	}

	/*
	 * Longer than an argument may be: the argument is cut, but the text
	 * must still hold as much of it as vsnprintf() would have written,
	 * so render it again straight into the text.
	 */
	kprint_rec_add_arg(b, b->argbuf, len);
	tail = kprint_rec_text_tail(b, &room);
	if (room > 1)
		kprint_rec_text_advance(b, kprint_arg_print(tail, room, &a));
	else
		kprint_rec_text_advance(b, len);
	return true;
}

/*
 * Renders one conversion as its own argument and appends it to the text.
 * Returns false if the specification could not be handled, in which case
 * rendering stops like vsnprintf() does at an invalid specification.
 */
static bool kprint_render_conv(struct kprint_builder *b, const char *fmt,
			       unsigned int n, const struct kprint_fmt_spec *fs,
			       va_list *ap)
{
	return kprint_render_plain(b, fmt, n, fs, ap) ||
	       kprint_render_snprintf(b, fmt, n, fs, ap);
}

/**
 * kprint_render() - render a format into the builder's text and arguments
 * @b: builder, after every fixed string has been stored
 * @fmt: printf-style format
 * @args: its arguments
 *
 * Literal runs go to the text only, %% adds a '%' to the text only, every
 * other conversion becomes one argument and is appended to the text.
 * A '*' width or precision is consumed with its conversion, so "%*d" is a
 * single argument, rendered padded.
 *
 * Context: Any context in which vsnprintf() of @fmt is safe.
 */
void kprint_render(struct kprint_builder *b, const char *fmt, va_list args)
{
	struct kprint_fmt_spec fs;
	unsigned int n;
	va_list ap;

	/* A copy, so that a pointer to it can be passed on portably. */
	va_copy(ap, args);
	while ((n = kprint_fmt_decode(fmt, &fs))) {
		switch (fs.type) {
		case KPRINT_FMT_LITERAL:
			kprint_rec_append_text(b, fmt, n);
			break;
		case KPRINT_FMT_PERCENT:
			/* "%*%" is odd, but vsnprintf() eats the width too. */
			if (fs.star_width)
				(void)va_arg(ap, int);
			if (fs.star_prec)
				(void)va_arg(ap, int);
			kprint_rec_append_text(b, "%", 1);
			break;
		case KPRINT_FMT_INVALID:
			goto out;
		default:
			if (!kprint_render_conv(b, fmt, n, &fs, &ap))
				goto out;
			break;
		}
		fmt += n;
	}
out:
	va_end(ap);
}

/* A format's literal text and its %% go to the text as they are. */
static bool kprint_render_text_token(struct kprint_builder *b, const char *fmt,
				     unsigned int n,
				     const struct kprint_fmt_spec *fs)
{
	switch (fs->type) {
	case KPRINT_FMT_LITERAL:
		kprint_rec_append_text(b, fmt, n);
		return true;
	case KPRINT_FMT_PERCENT:
		kprint_rec_append_text(b, "%", 1);
		return true;
	default:
		return false;
	}
}

/**
 * kprint_render_given() - the text of a format whose arguments are rendered
 * @b: builder, after every fixed string has been stored
 * @fmt: printf-style format
 * @args: the rendered arguments, one per conversion, in order
 * @lens: their lengths
 * @nargs: how many
 *
 * For records whose arguments come already rendered (KPRINT_CMD_EMIT): the
 * text is the format with every conversion replaced by the matching
 * argument, verbatim.  The argument count must match exactly: a format
 * that consumed more arguments than it was given is exactly the printf bug
 * kprint should not let userspace reproduce.  On an error the builder is
 * left half-filled and the record must be thrown away.
 *
 * Context: Any context.
 * Return: KPRINT_RENDER_OK, or why the format cannot be used.
 */
enum kprint_render_err kprint_render_given(struct kprint_builder *b,
					   const char *fmt,
					   const char *const *args,
					   const size_t *lens,
					   unsigned int nargs)
{
	struct kprint_fmt_spec fs;
	unsigned int n, i = 0;

	for (; (n = kprint_fmt_decode(fmt, &fs)); fmt += n) {
		if (fs.star_width || fs.star_prec)
			return KPRINT_RENDER_STAR;
		if (kprint_render_text_token(b, fmt, n, &fs))
			continue;
		if (fs.type == KPRINT_FMT_INVALID)
			return KPRINT_RENDER_INVALID;
		if (i == nargs)
			return KPRINT_RENDER_MISMATCH;
		kprint_render_emit(b, args[i], lens[i]);
		i++;
	}
	return i == nargs ? KPRINT_RENDER_OK : KPRINT_RENDER_MISMATCH;
}

/**
 * kprint_render_expand() - the record readers see, of a deferred one
 * @src: a record of rflags KPRINT_REC_DEFERRED (kprint_render_planned())
 * @b: builder whose @rec (KPRINT_REC_MAX bytes) and @text are to be used
 *
 * Renders the arguments and the text from the stored format and values,
 * byte for byte what rendering them when the record was made would have
 * stored.  The format was stored without its trailing newline, which the
 * text of a printk message drops too.
 *
 * Context: Any context.
 */
void kprint_render_expand(const struct kprint_rec *src,
			  struct kprint_builder *b)
{
	const char *fmt = kprint_rec_format(src);
	struct kprint_rec *rec = b->rec;
	struct kprint_fmt_spec fs;
	unsigned int i, n, arg = 0;
	const char *s;

	kprint_copy(rec, src, sizeof(*src));
	rec->rflags &= ~KPRINT_REC_DEFERRED;
	rec->nr_args = 0;
	b->pos = rec->data;
	b->text_len = 0;
	b->text_start = 0;
	for (i = 0; i < KPRINT_STR_TEXT; i++)
		kprint_rec_put_strn(b, i, kprint_rec_str(src, i),
				    src->slen[i]);

	for (; (n = kprint_fmt_decode(fmt, &fs)); fmt += n) {
		if (kprint_render_text_token(b, fmt, n, &fs))
			continue;
		if (WARN_ON_ONCE(arg == src->nr_args))
			break;
		s = kprint_rec_str(src, KPRINT_STR_ARG0 + arg);
		if (kprint_plain_kind(fmt, n, &fs) == KPRINT_PLAIN_STR)
			kprint_render_emit(b, s, src->slen[KPRINT_STR_ARG0 + arg]);
		else
			kprint_plain_emit_int(b, fmt, n, &fs,
					      get_unaligned((const u64 *)s));
		arg++;
	}
	kprint_rec_append_text(b, "\n", 1);
	kprint_rec_end(b);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kprint_printk_test table: printk()/pr_*() calls covering every
 * conversion of kprint_test_table.h (tests/e2e/bridge-table.py checks that
 * it does), each with the args the printk bridge must render for it.
 * Included by kprint_printk_test.c with KPPT_X() defined, once to make the
 * calls and once to make the expected table; one entry a line, so every
 * entry is a call site of its own.
 *
 * KPPT_X(index, call, level, format, expected args, arguments...)
 *
 * call is a kppt_<how>() macro of kprint_printk_test.c: pr_<level> (with
 * pr_fmt), printk_<level> (printk(KERN_<LEVEL> ...), no pr_fmt), printk
 * (no level at all: the default one), printk_kdefault (KERN_DEFAULT),
 * pr_info_nonl (no trailing newline: the line is closed by the next
 * entry's printk) and pv_info (the format inside a %pV).  level is the
 * level printk stores, "default" for default_message_loglevel.  expected
 * is KPPT_ARGS(every rendered arg) or KPPT_ARGS_RE(a regex per arg), for
 * the values no table can know (hashed pointers, symbol offsets), or
 * KPPT_ARGS_LONG for the one argument longer than KPRINT_ARG_MAX.
 * No include guard: this file is meant to be included more than once.
 */
KPPT_X(0, printk_emerg, "emerg", "kprint_printk_test emerg %d", KPPT_ARGS("-1"), -1)
KPPT_X(1, printk_alert, "alert", "kprint_printk_test alert %i", KPPT_ARGS("42"), 42)
KPPT_X(2, printk_crit, "crit", "kprint_printk_test crit %u", KPPT_ARGS("3000000000"), 3000000000U)
KPPT_X(3, pr_err, "err", "err %x", KPPT_ARGS("beef"), 0xbeef)
KPPT_X(4, pr_warn, "warn", "warn %X", KPPT_ARGS("BEEF"), 0xbeef)
KPPT_X(5, pr_notice, "notice", "notice %o", KPPT_ARGS("10"), 8)
KPPT_X(6, pr_info, "info", "info %#x", KPPT_ARGS("0xff"), 255)
KPPT_X(7, printk_debug, "debug", "kprint_printk_test debug %-5d|", KPPT_ARGS("42   "), 42)
KPPT_X(8, printk, "default", "kprint_printk_test default %05d", KPPT_ARGS("00042"), 42)
KPPT_X(9, printk_kdefault, "default", "kprint_printk_test kern_default %*d", KPPT_ARGS("    42"), 6, 42)
KPPT_X(10, pr_info, "info", "precision %.*s", KPPT_ARGS("abc"), 3, "abcdef")
KPPT_X(11, pr_info, "info", "char-size %hhd", KPPT_ARGS("-3"), 509)
KPPT_X(12, pr_info, "info", "short %hd", KPPT_ARGS("-1234"), (short)-1234)
KPPT_X(13, pr_info, "info", "long %ld", KPPT_ARGS("-1234567890123"), -1234567890123L)
KPPT_X(14, pr_info, "info", "longlong %lld", KPPT_ARGS("-9000000000000000000"), -9000000000000000000LL)
KPPT_X(15, pr_info, "info", "ulong %lu", KPPT_ARGS("18446744073709551615"), ULONG_MAX)
KPPT_X(16, pr_info, "info", "size %zu", KPPT_ARGS("4096"), (size_t)4096)
KPPT_X(17, pr_info, "info", "ssize %zd", KPPT_ARGS("-4096"), (ssize_t)-4096)
KPPT_X(18, pr_info, "info", "ptrdiff %td", KPPT_ARGS("-17"), (ptrdiff_t)-17)
KPPT_X(19, pr_info, "info", "char %c", KPPT_ARGS("K"), 'K')
KPPT_X(20, pr_info, "info", "string %s", KPPT_ARGS("hello"), "hello")
KPPT_X(21, pr_info, "info", "rpad [%10s]", KPPT_ARGS("     right"), "right")
KPPT_X(22, pr_info, "info", "lpad [%-10s]|", KPPT_ARGS("left      "), "left")
KPPT_X(23, pr_info, "info", "prec %.3s", KPPT_ARGS("abc"), "abcdef")
KPPT_X(24, pr_info, "info", "percent 100%% %d%%", KPPT_ARGS("50"), 50)
KPPT_X(25, pr_info, "info", "hashed %p", KPPT_ARGS_RE("[0-9a-f]{8,16}"), &kppt_long)
KPPT_X(26, pr_info, "info", "symbol %pS", KPPT_ARGS_RE("kppt_marker\\+0x0/0x[0-9a-f]+ \\[kprint_printk_test\\]"), kppt_marker)
KPPT_X(27, pr_info, "info", "symname %ps", KPPT_ARGS("kppt_marker [kprint_printk_test]"), kppt_marker)
KPPT_X(28, pr_info, "info", "ipv4 %pI4", KPPT_ARGS("192.0.2.1"), kppt_ip4)
KPPT_X(29, pr_info, "info", "ipv6 %pI6c", KPPT_ARGS("2001:db8::1"), kppt_ip6)
KPPT_X(30, pr_info, "info", "mac %pM", KPPT_ARGS("00:11:22:33:44:55"), kppt_mac)
KPPT_X(31, pr_info, "info", "uuid %pUb", KPPT_ARGS("00112233-4455-6677-8899-aabbccddeeff"), kppt_uuid)
KPPT_X(32, pr_info, "info", "no args", KPPT_ARGS())
KPPT_X(33, pr_info, "info", "escape %s", KPPT_ARGS(KPPT_ESCAPE), kppt_escape)
KPPT_X(34, pr_info, "info", "multi %d %s %u %c", KPPT_ARGS("-7", "two", "3", "x"), -7, "two", 3U, 'x')
KPPT_X(35, pv_info, "info", "pV <%pV>", KPPT_ARGS("inner 5 five"), "inner %d %s", 5, "five")
KPPT_X(36, pr_info, "info", "signs %+d % d", KPPT_ARGS("+5", " 6"), 5, 6)
KPPT_X(37, pr_info, "info", "long arg %s", KPPT_ARGS_LONG, kppt_long)
KPPT_X(38, pr_info, "info", "null %s", KPPT_ARGS("(null)"), kppt_null)
KPPT_X(39, pr_info, "info", "efault %s", KPPT_ARGS("(efault)"), (const char *)ERR_PTR(-EINVAL))
KPPT_X(40, pr_info, "info", "hex %lx %llx %llu %lli", KPPT_ARGS("deadbeef", "123456789abcdef", "18446744073709551615", "-9223372036854775808"), 0xdeadbeefUL, 0x123456789abcdefULL, ULLONG_MAX, LLONG_MIN)
KPPT_X(41, pr_info, "info", "min %d %ld %zd", KPPT_ARGS("-2147483648", "-9223372036854775808", "0"), INT_MIN, LONG_MIN, (ssize_t)0)
KPPT_X(42, pr_info_nonl, "info", "no newline %d", KPPT_ARGS("1"), 1)
KPPT_X(43, pr_info, "info", "after no newline %s", KPPT_ARGS("x"), "x")

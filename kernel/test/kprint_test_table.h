/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kprint_test table, included by kprint_test.c with KPRINT_TEST_X()
 * defined to expand each entry into a switch case.  One entry per line, so
 * every entry is a call site of its own, with its own line number (records
 * from it show this file and line); every format is distinct.
 *
 * KPRINT_TEST_X(index, kprint macro, format, arguments...)
 *
 * Entry 36 (%pV) needs a va_list and lives in kprint_test_pv() instead.
 * No include guard: this file is meant to be included more than once.
 */
KPRINT_TEST_X(0, kprint_emerg, "kprint_test emerg %d", -1)
KPRINT_TEST_X(1, kprint_alert, "kprint_test alert %i", 42)
KPRINT_TEST_X(2, kprint_crit, "kprint_test crit %u", 3000000000U)
KPRINT_TEST_X(3, kprint_err, "kprint_test err %x", 0xbeef)
KPRINT_TEST_X(4, kprint_warn, "kprint_test warn %X", 0xbeef)
KPRINT_TEST_X(5, kprint_notice, "kprint_test notice %o", 8)
KPRINT_TEST_X(6, kprint_info, "kprint_test info %#x", 255)
KPRINT_TEST_X(7, kprint_debug, "kprint_test debug %-5d|", 42)
KPRINT_TEST_X(8, kprint, "kprint_test default %05d", 42)
KPRINT_TEST_X(9, kprint_detected, "kprint_test detected %*d", 6, 42)
KPRINT_TEST_X(10, kprint_registered, "kprint_test registered %.*s", 3, "abcdef")
KPRINT_TEST_X(11, kprint_setting, "kprint_test setting %hhd", 509)
KPRINT_TEST_X(12, kprint_copyright, "kprint_test copyright %hd", (short)-1234)
KPRINT_TEST_X(13, kprint_info, "kprint_test long %ld", -1234567890123L)
KPRINT_TEST_X(14, kprint_info, "kprint_test longlong %lld", -9000000000000000000LL)
KPRINT_TEST_X(15, kprint_info, "kprint_test ulong %lu", ULONG_MAX)
KPRINT_TEST_X(16, kprint_info, "kprint_test size %zu", (size_t)4096)
KPRINT_TEST_X(17, kprint_info, "kprint_test ssize %zd", (ssize_t)-4096)
KPRINT_TEST_X(18, kprint_info, "kprint_test ptrdiff %td", (ptrdiff_t)-17)
KPRINT_TEST_X(19, kprint_info, "kprint_test char %c", 'K')
KPRINT_TEST_X(20, kprint_info, "kprint_test string %s", "hello")
KPRINT_TEST_X(21, kprint_info, "kprint_test rpad [%10s]", "right")
KPRINT_TEST_X(22, kprint_info, "kprint_test lpad [%-10s]|", "left")
KPRINT_TEST_X(23, kprint_info, "kprint_test prec %.3s", "abcdef")
KPRINT_TEST_X(24, kprint_info, "kprint_test percent 100%% %d%%", 50)
KPRINT_TEST_X(25, kprint_info, "kprint_test hashed %p", &kprint_test_long)
KPRINT_TEST_X(26, kprint_info, "kprint_test symbol %pS", kprint_test_marker)
KPRINT_TEST_X(27, kprint_info, "kprint_test symname %ps", kprint_test_marker)
KPRINT_TEST_X(28, kprint_info, "kprint_test ipv4 %pI4", kprint_test_ip4)
KPRINT_TEST_X(29, kprint_info, "kprint_test ipv6 %pI6c", kprint_test_ip6)
KPRINT_TEST_X(30, kprint_info, "kprint_test mac %pM", kprint_test_mac)
KPRINT_TEST_X(31, kprint_info, "kprint_test uuid %pUb", kprint_test_uuid)
KPRINT_TEST_X(32, kprint_info, "kprint_test no args")
KPRINT_TEST_X(33, kprint_info, "kprint_test escape %s", kprint_test_escape)
KPRINT_TEST_X(34, kprint_info, "kprint_test multi %d %s %u %c", -7, "two", 3U, 'x')
KPRINT_TEST_X(35, kprint_info, "kprint_test newline %d\n", 7)
KPRINT_TEST_X(37, kprint_info, "kprint_test signs %+d % d", 5, 6)
KPRINT_TEST_X(38, kprint_info, "kprint_test long arg %s", kprint_test_long)
KPRINT_TEST_X(39, kprint_info, "kprint_test null %s", kprint_test_null)
KPRINT_TEST_X(40, kprint_info, "kprint_test efault %s", (const char *)ERR_PTR(-EINVAL))
KPRINT_TEST_X(41, kprint_info, "kprint_test hex %lx %llx %llu %lli", 0xdeadbeefUL, 0x123456789abcdefULL, ULLONG_MAX, LLONG_MIN)
KPRINT_TEST_X(42, kprint_info, "kprint_test min %d %ld %zd", INT_MIN, LONG_MIN, (ssize_t)0)

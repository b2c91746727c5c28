// SPDX-License-Identifier: GPL-2.0
/*
 * libkpc's node-problem-detector rules (kpc_npd.h): the loader (defaults,
 * FILE:LINE of a refused pattern), the RE2 check (NPD's own patterns pass,
 * what Go's regexp refuses is refused), and the buffer matcher as NPD's
 * log_buffer.go matches: the ring joined with "\n", empty slots too, the
 * pattern anchored at the end only, multi-line rules, a ring that forgets,
 * a fragment appended, each message trimmed of white space as NPD's kmsg
 * watcher trims it, and PCRE2's match limit; "lookback" and "delay" read as
 * Go's time.ParseDuration() reads them, and NPD's start time from them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kpc.h"
#include "test_kpc_tap.h"

static char dir[] = "/tmp/test_kpc_npd.XXXXXX";

/* path of a file holding text, in dir. */
static const char *file(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return path;
}

/* A file of one rule, pattern as JSON writes it, buffer lines. */
static struct kpc_npd *one_rule(const char *pattern, int buffer)
{
	char text[1024], err[512];
	struct kpc_npd *n = NULL;

	snprintf(text, sizeof(text), "{ \"bufferSize\": %d,\n  \"rules\": [ { \"type\":"
		 " \"temporary\", \"reason\": \"R\",\n  \"pattern\": \"%s\" } ] }\n",
		 buffer, pattern);
	if (kpc_npd_load(file("one.json", text), &n, err, sizeof(err)))
		tap_ok(0, "loads /%s/: %s", pattern, err);
	return n;
}

static int push(struct kpc_npd *n, const char *msg)
{
	return kpc_npd_push(n, msg, strlen(msg));
}

static void test_re2(void)
{
	static const char *const good[] = {
		"Killed process \\d+ (.+) total-vm:\\d+kB, anon-rss:\\d+kB, file-rss:\\d+kB.*",
		"task [\\S ]+:\\w+ blocked for more than \\w+ seconds\\.",
		"divide error: 0000 \\[#\\d+\\] SMP", "(?i)xfs", "(?P<dev>sd[a-z]+)", "a*?b+?",
		"[\\1(?=]", "\\Q(?=\\E", "x{2,3}y", "\\x41\\101",
	};
	static const char *const bad[] = {
		"(a)\\1", "(?=x)", "(?!x)", "(?<=x)y", "(?<!x)y", "(?>x)", "a*+", "a++", "a?+",
		"a{2}+", "(?R)", "(?1)", "(*ACCEPT)", "\\k<n>", "\\g1", "a\\Kb", "\\R",
		"(?P=n)", "(?C1)", "(?|a|b)",
	};
	char err[160];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		tap_ok(!kpc_npd_re2_check(good[i], err, sizeof(err)), "RE2 has /%s/", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		tap_ok(kpc_npd_re2_check(bad[i], err, sizeof(err)) && strstr(err, "RE2"),
		       "RE2 has no /%s/: %s", bad[i], err);
}

static void test_load(void)
{
	char err[512];
	struct kpc_npd *n = NULL;
	const char *p;
	int ret;

	p = file("min.json", "{ \"rules\": [] }");
	ret = kpc_npd_load(p, &n, err, sizeof(err));
	tap_ok(!ret && n->buffer_size == KPC_NPD_BUFFER_DEFAULT && n->nrules == 0 &&
	       !strcmp(n->source, "kernel-monitor"), "NPD's defaults: bufferSize 10 (%d: %s)",
	       ret, err);
	kpc_npd_free(n);
	p = file("bad.json", "{\n \"rules\": [\n  { \"type\": \"temporary\", \"reason\": \"A\",\n"
		 "    \"pattern\": \"x\" },\n  { \"type\": \"temporary\", \"reason\": \"B\",\n"
		 "    \"pattern\": \"(a)\\\\1\" }\n ]\n}\n");
	ret = kpc_npd_load(p, &n, err, sizeof(err));
	tap_ok(ret == -EINVAL && !n && strstr(err, "bad.json:6: ") && strstr(err, "backreference"),
	       "a backreference refused at its line: %s", err);
	p = file("type.json", "{ \"rules\": [ { \"type\": \"sometimes\", \"reason\": \"A\","
		 " \"pattern\": \"x\" } ] }");
	ret = kpc_npd_load(p, &n, err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, "type.json:1: "), "a type other than temporary or"
	       " permanent: %s", err);
	p = file("size.json", "{ \"bufferSize\": \"ten\", \"rules\": [] }");
	ret = kpc_npd_load(p, &n, err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, "bufferSize"), "a bufferSize not a number: %s", err);
	ret = kpc_npd_load(file("empty.json", ""), &n, err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, "not JSON"), "an empty file: %s", err);
}

static void test_buffer(void)
{
	struct kpc_npd *n = one_rule("first\\\\nsecond", 3);

	if (!n)
		return;
	push(n, "first");
	tap_ok(!kpc_npd_match(n, 0), "a two-line rule: not on its first line alone");
	push(n, "second");
	tap_ok(kpc_npd_match(n, 0) == 1, "... on both, its last the newest");
	push(n, "third");
	tap_ok(!kpc_npd_match(n, 0), "... not once another line came");
	kpc_npd_free(n);

	n = one_rule("\\\\A\\\\n\\\\nonly", 3);
	push(n, "only");
	tap_ok(n && kpc_npd_match(n, 0) == 1, "the ring's empty slots are joined too, as NPD's");
	kpc_npd_free(n);

	n = one_rule("a\\\\nb\\\\nc\\\\nd", 3);
	push(n, "a"), push(n, "b"), push(n, "c"), push(n, "d");
	tap_ok(n && !kpc_npd_match(n, 0), "a rule longer than the ring never matches");
	kpc_npd_free(n);

	n = one_rule("Usage count = \\\\d+", 2);
	push(n, "unregister_netdevice: waiting for lo to become free. Usage count = 1 more");
	tap_ok(!kpc_npd_match(n, 0), "anchored at the end: not mid-line");
	kpc_npd_free(n);

	n = one_rule("error|warning .*", 2);
	push(n, "EXT4-fs error (device sda1): x");
	tap_ok(n && kpc_npd_match(n, 0) == 1, "PATTERN\\z as NPD compiles it: a first branch"
	       " is unanchored");
	kpc_npd_free(n);

	n = one_rule("waiting for \\\\w+ to become free", 2);
	push(n, "unregister_netdevice: waiting for ");
	tap_ok(!kpc_npd_match(n, 0), "a line's head alone does not match");
	kpc_npd_append(n, "eth0 to become free", strlen("eth0 to become free"));
	tap_ok(kpc_npd_match(n, 0) == 1, "... its fragment appended, it does");
	kpc_npd_free(n);
}

static void test_trim(void)
{
	struct kpc_npd *n = one_rule("^Not tainted\\nread-only", 2);

	if (!n)
		return;
	push(n, "      Not tainted");
	push(n, "read-only \t");
	tap_ok(kpc_npd_match(n, 0) == 1, "messages matched trimmed at both ends"
	       " (strings.TrimSpace(), as NPD's kmsg watcher)");
	kpc_npd_free(n);
	n = one_rule("foo bar", 1);
	push(n, "foo ");
	kpc_npd_append(n, "bar", 3);
	tap_ok(n && kpc_npd_match(n, 0) == 1, "... a fragment's line trimmed whole, its inner"
	       " space kept");
	kpc_npd_free(n);
}

static void test_duration(void)
{
	static const struct {
		const char *s;
		uint64_t ns;
	} good[] = {
		{ "5m", 300000000000ULL }, { "1h30m", 5400000000000ULL }, { "0", 0 },
		{ "90s", 90000000000ULL }, { "1.5s", 1500000000ULL }, { ".5ms", 500000 },
		{ "300ms", 300000000 }, { "2us", 2000 }, { "2\u00b5s", 2000 }, { "+7ns", 7 },
		{ "1m0.5s", 60500000000ULL },
	};
	static const char *const bad[] = { "", "5", "5x", "m", "-5m", "5mm", "1.s.", "h1",
					   "99999999999999999999h" };
	char text[256], err[512];
	struct kpc_npd *n = NULL;
	uint64_t ns;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		tap_ok(!kpc_npd_duration(good[i].s, &ns) && ns == good[i].ns,
		       "duration \"%s\" is %llu ns", good[i].s, (unsigned long long)good[i].ns);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		tap_ok(kpc_npd_duration(bad[i], &ns) == -EINVAL, "\"%s\" is no duration", bad[i]);

	snprintf(text, sizeof(text), "{ \"lookback\": \"2m\", \"delay\": \"30s\",\n"
		 "  \"rules\": [] }\n");
	tap_ok(!kpc_npd_load(file("when.json", text), &n, err, sizeof(err)), "lookback and delay"
	       " load: %s", err);
	tap_ok(n && kpc_npd_start(n, 600000000000ULL) == 480000000000ULL,
	       "start time: 10 min after boot, lookback 2m: 8 min after boot");
	tap_ok(n && kpc_npd_start(n, 60000000000ULL) == 30000000000ULL,
	       "... 1 min after boot: boot plus the delay of 30 s");
	kpc_npd_free(n);
	n = one_rule("x", 1);
	tap_ok(n && kpc_npd_start(n, 5000) == 5000, "no lookback: NPD's start is now");
	kpc_npd_free(n);
	n = NULL;
	snprintf(text, sizeof(text), "{ \"plugin\": \"kmsg\",\n  \"lookback\": \"5 min\",\n"
		 "  \"rules\": [] }\n");
	tap_ok(kpc_npd_load(file("when.json", text), &n, err, sizeof(err)) == -EINVAL &&
	       strstr(err, "when.json:2: \"lookback\" \"5 min\" is no Go duration"),
	       "a lookback Go does not read: FILE:LINE: reason (%s)", err);
	kpc_npd_free(n);
}

static void test_limit(void)
{
	struct kpc_npd *n = one_rule("(\\\\w+\\\\s?)+$", 1);
	char line[200];

	if (!n)
		return;
	memset(line, 'a', sizeof(line) - 2);
	line[sizeof(line) - 2] = '!';
	line[sizeof(line) - 1] = '\0';
	push(n, line);
	tap_ok(kpc_npd_match(n, 0) == -E2BIG, "a catastrophic pattern stops at the match limit");
	kpc_npd_free(n);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	test_re2();
	test_load();
	test_buffer();
	test_trim();
	test_duration();
	test_limit();
	for (const char *const *f = (const char *const[]){ "one.json", "min.json", "bad.json",
		"type.json", "size.json", "empty.json", "when.json", NULL }; *f; f++)
		unlink(file(*f, ""));
	rmdir(dir);
	return tap_done();
}

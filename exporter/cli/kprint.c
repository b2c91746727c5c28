// SPDX-License-Identifier: GPL-2.0
/*
 * kprint - read, follow and inject structured kernel messages.
 *
 * main() handles the global options and dispatches to a command; a command
 * parses its own options (plus the global ones, which may come after the
 * command name too, kprint_opts.c) and returns an exit status
 * (kprint_exit.c).
 */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kprint.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct kprint_command {
	const char *name;
	int (*run)(struct kprint_opts *o, int argc, char **argv);
	bool catalog;		/* shows records: takes --catalog */
};

/* New commands (e.g. "formats") go here and in kprint_usage(). */
static const struct kprint_command kprint_commands[] = {
	{ "monitor",	kprint_cmd_monitor,	true },
	{ "dump",	kprint_cmd_dump,	true },
	{ "stats",	kprint_cmd_stats,	false },
	{ "emit",	kprint_cmd_emit,	false },
	{ "formats",	kprint_cmd_formats,	false },
	{ "translate",	kprint_cmd_translate,	true },
	{ "catalog",	kprint_cmd_catalog,	false },
	{ "sites",	kprint_cmd_sites,	false },
	{ "problems",	kprint_cmd_problems,	false },
};

int main(int argc, char **argv)
{
	struct kprint_opts o = { .color = KPRINT_COLOR_AUTO };
	const struct kprint_command *cmd = NULL;
	const char *codeset;
	bool utf8;
	unsigned int i;
	int ret;

	setlocale(LC_CTYPE, "");
	codeset = nl_langinfo(CODESET);
	utf8 = codeset && !strcmp(codeset, "UTF-8");
	kpc_text_init(&o.text, false, utf8);

	ret = kprint_parse(&o, argc, argv, NULL, NULL);
	if (ret)
		return ret < 0 ? KPRINT_EXIT_OK : ret;
	if (optind >= argc)
		return kprint_usage_error("no command given%s", "");

	for (i = 0; i < ARRAY_SIZE(kprint_commands); i++)
		if (!strcmp(argv[optind], kprint_commands[i].name))
			cmd = &kprint_commands[i];
	if (!cmd)
		return kprint_usage_error("unknown command '%s'", argv[optind]);

	o.cmd = cmd->name;
	o.cmd_takes_catalog = cmd->catalog;
	/* The command's argv starts with its name, as getopt expects. */
	ret = cmd->run(&o, argc - optind, argv + optind);
	kprint_catalog_close(&o);
	return ret;
}

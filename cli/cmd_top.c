/*
 * cmd_top: `provisor top`'s flags; the view itself is tui/top.c.
 */
#include <getopt.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "tui/top.h"

static const struct option cmd_top_options[] = {
	{ "name", required_argument, NULL, 'n' },
	{ "delay", required_argument, NULL, 'd' },
	{ "once", no_argument, NULL, '1' },
	{ "width", required_argument, NULL, 'w' },
	{ "no-color", no_argument, NULL, 'C' },
	{ "ascii", no_argument, NULL, 'a' },
	{ "read-only", no_argument, NULL, 'R' },
	{ "fleet", required_argument, NULL, 'F' },
	{ "help", no_argument, NULL, 'h' },
	{ 0, 0, 0, 0 },
};

/* 0 to go on, 2 after saying what was wrong, -1 after --help. */
static int cmd_top_parse(int argc, char **argv, struct top_opts *o)
{
	const char *nc = getenv("NO_COLOR");
	long n;
	int opt;

	int named = 0;

	*o = (struct top_opts){ .name = "default", .color = !(nc && *nc) };
	opterr = 0;
	optind = 0;
	while ((opt = cli_getopt(argc, argv)) != -1) {
		switch (opt) {
		case 'n': o->name = optarg; named = 1; break;
		case 'F': o->fleet = optarg; break;
		case '1': o->once = 1; break;
		case 'C': o->color = 0; break;
		case 'a': o->ascii = 1; break;
		case 'R': o->read_only = 1; break;
		case 'h': return cli_help("top") - 1;
		case 'd':
			if (cli_parse_int(optarg, 1, 600, &n) < 0)
				return cli_usage_error("top", "-d '%s' is not a delay in tenths of a second, 1..600",
						       optarg);
			o->tenths = (unsigned)n;
			break;
		case 'w':
			if (cli_parse_int(optarg, 1, 10000, &n) < 0)
				return cli_usage_error("top", "--width '%s' is not a number of columns in 1..10000",
						       optarg);
			o->width = (int)n;
			break;
		default:
			return cli_bad_option(opt, argv);
		}
	}
	if (optind < argc)
		return cli_extra_arg(argv);
	if (o->fleet && named)
		return cli_usage_error("top", "--fleet shows every node of a fleet: --name is for one instance");
	if (!o->tenths)
		o->tenths = o->fleet ? 10 : 5;	/* a fleet's database: once a second */
	return 0;
}

static int cmd_top(int argc, char **argv)
{
	struct top_opts o;
	int rc;

	if ((rc = cmd_top_parse(argc, argv, &o)))
		return rc < 0 ? 0 : rc;	/* -1: --help was printed */
	return o.fleet ? top_fleet_main(&o) : top_main(&o);
}

const struct cli_entry cli_cmd_top = {
	.name = "top",
	.usage = "top [--name NAME | --fleet DSN] [-d TENTHS] [--once] [--width N] [--no-color] [--ascii] "
		 "[--read-only]",
	.help = "A live view of the instance's slots, jobs and events, from its status\n"
		"segment. Keys: ? or F1 lists them (q quits).\n"
		"  --fleet DSN         every node of the fleet whose database DSN is (its state,\n"
		"                      slots busy of total, the jobs it holds) and the queue per\n"
		"                      kind, read-only; a database that does not answer within\n"
		"                      3 s is said unreachable, its last view kept, retried\n"
		"  -d, --delay TENTHS  refresh every TENTHS of a second, 1 to 600 (default 5;\n"
		"                      10 with --fleet)\n"
		"  --once              print one frame and exit\n"
		"  --width N           draw N columns, 1 to 10000 (default: the terminal's)\n"
		"  --no-color          no colours (also when NO_COLOR is set)\n"
		"  --ascii             ASCII only, no line-drawing or block characters\n"
		"  --read-only         no cancel, disable or enable from the view\n"
		CLI_HELP_NAME,
	.options = cmd_top_options,
	.optstring = ":d:h",
	.exec = cmd_top,
};

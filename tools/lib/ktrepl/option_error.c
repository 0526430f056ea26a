// SPDX-License-Identifier: GPL-2.0
/*
 * getopt_long() leaves little to say which option it refused: an
 * unknown long option leaves optopt 0; a long one given a value it takes
 * none of sets optopt to its val; an unknown short one sets optopt to
 * its letter, and may sit inside a group (-jx), where argv[optind - 1]
 * is still the word before. An option missing its argument was the last
 * of its word, which argv[optind - 1] then is.
 */
#include <stdio.h>
#include <string.h>

#include "option_error.h"

/* is arg "--NAME" or "--NAME=..." for the option whose val optopt is? */
static bool long_with_value(const char *arg, size_t name,
			    const struct option *options)
{
	const struct option *o;

	if (strncmp(arg, "--", 2))
		return false;
	for (o = options; o->name; o++)
		if (o->val == optopt && strlen(o->name) == name - 2 &&
		    !strncmp(arg + 2, o->name, name - 2))
			return true;
	return false;
}

void kt_option_error(char *buf, size_t len, char *const *argv, bool missing,
		     const struct option *options)
{
	const char *arg = argv[optind - 1];
	size_t name = strcspn(arg, "=");
	bool is_long = !strncmp(arg, "--", 2) && (missing || !optopt);

	if (!is_long && !missing && optopt)
		is_long = long_with_value(arg, name, options);
	if (!is_long)
		snprintf(buf, len, "-%c %s", optopt,
			 missing ? "needs an argument" : "is not an option");
	else if (missing)
		snprintf(buf, len, "%.*s needs an argument", (int)name, arg);
	else if (optopt && arg[name])
		snprintf(buf, len, "%.*s takes no argument", (int)name, arg);
	else
		snprintf(buf, len, "%.*s is not an option", (int)name, arg);
}

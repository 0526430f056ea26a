/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_OPTION_ERROR_H
#define KTREPL_OPTION_ERROR_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The words for the option getopt_long() (with opterr 0 and a ':' first
 * in its optstring) just refused, read from optind and optopt: missing
 * is true when it returned ':'. "--node needs an argument", "--all takes
 * no argument", "-x is not an option": the option as it was typed.
 */
void kt_option_error(char *buf, size_t len, char *const *argv, bool missing,
		     const struct option *options);

#endif

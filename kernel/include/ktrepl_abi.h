/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_ABI_H
#define KTREPL_ABI_H

/*
 * Version of the debugfs text format and of the vmcore descriptor, see
 * docs/abi.md. Any change in the meaning of a field bumps it.
 */
#define KTREPL_ABI_VERSION 1

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * provider.c: the ops of the struct ktrepl_provider the publisher reads
 * (core.c holds the object).
 */
#ifndef KTR_PROVIDER_H
#define KTR_PROVIDER_H

#include "core.h"

/* core.c's provider with its ops, once the engine is loaded */
struct ktrepl_provider *ktr_engine_provider(void);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * engine.c: the engine's load, stop and free, which module init and exit
 * call in this order. The state its files share is in core.h.
 */
#ifndef KTREPL_ENGINE_H
#define KTREPL_ENGINE_H

#include "core.h"

int ktr_engine_init(void);
void ktr_engine_stop(void);		/* before the publisher goes */
void ktr_engine_free(void);

#endif

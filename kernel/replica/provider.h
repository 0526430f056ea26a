/* SPDX-License-Identifier: GPL-2.0 */
/*
 * provider.c: the struct ktrepl_provider the publisher reads.
 */
#ifndef KTR_PROVIDER_H
#define KTR_PROVIDER_H

#include "engine.h"

/* provider.c */
extern struct ktrepl_provider ktr_provider;
void ktr_notify_changed(bool lists);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_PUBLISH_H
#define KTREPL_PUBLISH_H

#include "ktrepl_provider.h"

int ktrepl_publish(struct ktrepl_provider *provider);
void ktrepl_unpublish(void);
const char *ktrepl_activation_name(enum ktrepl_activation act);
unsigned long ktrepl_direct_map(const struct ktrepl_provider *p);

int ktrepl_desc_publish(const struct ktrepl_provider *provider);
void ktrepl_desc_unpublish(void);
void ktrepl_desc_refresh(bool may_sleep);
u32 ktrepl_node_role(const struct ktrepl_provider *p, int nid);

#endif

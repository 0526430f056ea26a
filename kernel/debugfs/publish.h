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
void ktrepl_desc_refresh(bool lists_changed);
struct ktrepl_desc;
bool ktrepl_panic_roots_arm(u64 *slots, unsigned int nr,
			    struct ktrepl_desc *desc,
			    phys_addr_t (*read_root)(void));
void ktrepl_panic_roots_disarm(void);
/* the descriptor's PA, 0 when none: crash finds it by module symbol */
extern u64 ktrepl_descriptor_pa;
u32 ktrepl_node_role(const struct ktrepl_provider *p, int nid);

#endif

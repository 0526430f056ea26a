/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_PUBLISH_H
#define KTREPL_PUBLISH_H

#include "ktrepl_provider.h"

void ktrepl_publish(const struct ktrepl_provider *provider);
void ktrepl_unpublish(void);

#endif

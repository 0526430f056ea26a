// SPDX-License-Identifier: GPL-2.0
/*
 * Debian links kexec-tools against libxenctrl.so.4.17 for kexec under Xen.
 * A test guest has no Xen and its initramfs no Xen libraries: this stub
 * gives kexec the entry points it imports, each saying "no hypervisor",
 * so kexec takes its native path (kexec_load), as on a host without Xen.
 */
#include <errno.h>
#include <stddef.h>

typedef struct xc_interface_core xc_interface;

/* an object kexec imports (40 bytes, as in Xen 4.17); unused without Xen */
char xc__hypercall_buffer_HYPERCALL_BUFFER_NULL[40];

xc_interface *xc_interface_open(void *logger, void *dombuild_logger,
				unsigned int open_flags)
{
	errno = ENOSYS;
	return NULL;
}

int xc_interface_close(xc_interface *xch)
{
	return 0;
}

#define NO_XEN(name) \
	int name(void) \
	{ \
		errno = ENOSYS; \
		return -1; \
	}

NO_XEN(xc_kexec_status)
NO_XEN(xc_kexec_get_range)
NO_XEN(xc_get_machine_memory_map)
NO_XEN(xc_kexec_load)
NO_XEN(xc_kexec_unload)
NO_XEN(xc_kexec_exec)
NO_XEN(xc_get_max_cpus)
NO_XEN(xc_version)
NO_XEN(xc_hypercall_buffer_array_destroy)

void *xc__hypercall_buffer_array_alloc(void)
{
	errno = ENOSYS;
	return NULL;
}

void *xc_hypercall_buffer_array_create(void)
{
	errno = ENOSYS;
	return NULL;
}

/*
 * bind.c - binds the calling process to one core or package (round robin
 * over what hwloc sees); used by encore-run --bind-to before exec.
 */
#include "enc.h"

#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo.h"

static const struct {
    const char *name;
    hwloc_obj_type_t type;
} bind_policies[] = {
    { "core", HWLOC_OBJ_CORE },
    { "package", HWLOC_OBJ_PACKAGE },
};

/* hwloc's binding calls are silent no-ops on a synthetic or XML topology;
 * record the simulated binding so enc_locality_detect() (here or after
 * exec) reports it.  On the real machine the kernel holds the binding. */
static int record_binding(hwloc_topology_t topo, hwloc_const_bitmap_t set)
{
    char *s = NULL;
    int rv;

    if (hwloc_topology_is_thissystem(topo))
        return unsetenv(ENC_TOPO_SIM_CPUBIND_ENV) == 0 ? ENC_OK : ENC_ERR_SYS;
    if (hwloc_bitmap_list_asprintf(&s, set) < 0)
        return ENC_ERR_NOMEM;
    rv = setenv(ENC_TOPO_SIM_CPUBIND_ENV, s, 1) == 0 ? ENC_OK : ENC_ERR_SYS;
    free(s);
    return rv;
}

static int bind_to(hwloc_topology_t topo, hwloc_obj_type_t type, int index)
{
    int count = hwloc_get_nbobjs_by_type(topo, type);
    hwloc_obj_t obj;

    if (count <= 0) {
        ENC_WARN("topo", "no %s objects to bind to", hwloc_obj_type_string(type));
        return ENC_ERR_UNSUPPORTED;
    }
    obj = hwloc_get_obj_by_type(topo, type, (unsigned)(index % count));
    if (hwloc_set_cpubind(topo, obj->cpuset, 0) != 0) {
        ENC_ERROR("topo", "binding to %s %d: %m", hwloc_obj_type_string(type), index % count);
        return ENC_ERR_SYS;
    }
    ENC_DEBUG("topo", "bound to %s %d", hwloc_obj_type_string(type), index % count);
    return record_binding(topo, obj->cpuset);
}

static int bind_type(hwloc_obj_type_t type, int index)
{
    hwloc_topology_t topo;
    int rv = ENC_ERR_SYS;

    if (hwloc_topology_init(&topo) != 0) {
        ENC_ERROR("topo", "hwloc_topology_init: %m");
        return ENC_ERR_SYS;
    }
    if (hwloc_topology_load(topo) != 0)
        ENC_ERROR("topo", "hwloc_topology_load: %m");
    else
        rv = bind_to(topo, type, index);
    hwloc_topology_destroy(topo);
    return rv;
}

enc_status_t enc_topo_bind(const char *policy, int index)
{
    if (policy == NULL || index < 0)
        return ENC_ERR_INVAL;
    if (strcmp(policy, "none") == 0)
        return ENC_OK;
    for (size_t i = 0; i < ENC_ARRAY_SIZE(bind_policies); i++)
        if (strcmp(policy, bind_policies[i].name) == 0)
            return bind_type(bind_policies[i].type, index);
    ENC_ERROR("topo", "unknown binding policy '%s' (core, package, none)", policy);
    return ENC_ERR_INVAL;
}

/*
 * locality.c - where the calling process runs: host, package, NUMA node and
 * core (hwloc logical indexes), reported to the tracker so it can build a
 * locality order that keeps neighbours close.
 */
#include "enc.h"

#include <hwloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topo/topo.h"

static int fill_host(struct enc_locality *loc)
{
    if (enc_tunable_isset(ENC_TUNE_HOST)) {
        snprintf(loc->host, sizeof(loc->host), "%s", enc_tunable_str(ENC_TUNE_HOST));
        return ENC_OK;
    }
    if (gethostname(loc->host, sizeof(loc->host)) != 0) {
        ENC_ERROR("topo", "gethostname: %m");
        loc->host[0] = '\0';
        return ENC_ERR_SYS;
    }
    /* gethostname() may truncate without a terminator. */
    loc->host[sizeof(loc->host) - 1] = '\0';
    return ENC_OK;
}

/* hwloc cannot bind against a topology that is not this machine (synthetic
 * or XML): it reports the whole machine.  enc_topo_bind() then records the
 * binding it would have made in ENC_TOPO_SIM_CPUBIND_ENV; read it back. */
static int get_binding(hwloc_topology_t topo, hwloc_bitmap_t set)
{
    if (!hwloc_topology_is_thissystem(topo) && enc_tunable_isset(ENC_TUNE_SIM_CPUBIND))
        return hwloc_bitmap_list_sscanf(set, enc_tunable_str(ENC_TUNE_SIM_CPUBIND));
    return hwloc_get_cpubind(topo, set, 0);
}

static int32_t logical_of(hwloc_obj_t obj)
{
    return obj != NULL ? (int32_t)obj->logical_index : -1;
}

/* NUMA nodes are memory children in hwloc 2, not ancestors of PUs: take the
 * first one whose cpuset holds the PU. */
static int32_t numa_of(hwloc_topology_t topo, hwloc_obj_t pu)
{
    hwloc_obj_t node = NULL;

    while ((node = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, node)) != NULL)
        if (hwloc_bitmap_isset(node->cpuset, pu->os_index))
            return (int32_t)node->logical_index;
    return -1;
}

static void fill_objects(hwloc_topology_t topo, hwloc_const_bitmap_t set,
                         struct enc_locality *loc)
{
    int first = hwloc_bitmap_first(set);
    hwloc_obj_t pu;

    /* Bound to the whole machine (or nothing usable): no locality. */
    if (first < 0 || hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(topo), set))
        return;
    pu = hwloc_get_pu_obj_by_os_index(topo, (unsigned)first);
    if (pu == NULL)
        return;
    loc->package = logical_of(hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu));
    loc->core = logical_of(hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu));
    loc->numa = numa_of(topo, pu);
}

static int fill_hwloc(struct enc_locality *loc)
{
    hwloc_topology_t topo;
    hwloc_bitmap_t set;
    int rv = ENC_ERR_SYS;

    if (hwloc_topology_init(&topo) != 0) {
        ENC_ERROR("topo", "hwloc_topology_init: %m");
        return ENC_ERR_SYS;
    }
    if (hwloc_topology_load(topo) != 0) {
        ENC_ERROR("topo", "hwloc_topology_load: %m");
        goto fail_topo;
    }
    if ((set = hwloc_bitmap_alloc()) == NULL) {
        rv = ENC_ERR_NOMEM;
        goto fail_topo;
    }
    if (get_binding(topo, set) != 0) {
        ENC_WARN("topo", "cannot read the CPU binding: %m");
        goto fail_set;
    }
    fill_objects(topo, set, loc);
    rv = ENC_OK;
fail_set:
    hwloc_bitmap_free(set);
fail_topo:
    hwloc_topology_destroy(topo);
    return rv;
}

enc_status_t enc_locality_detect(struct enc_locality *loc)
{
    int rv;

    if (loc == NULL)
        return ENC_ERR_INVAL;
    memset(loc, 0, sizeof(*loc));
    loc->package = loc->numa = loc->core = -1;
    if ((rv = fill_host(loc)) != 0)
        return rv;
    /* On hwloc failure loc still holds the host and -1s. */
    return fill_hwloc(loc);
}

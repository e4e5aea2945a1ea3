/* ARMCI transfers: contiguous, strided and vector put/get/accumulate, blocking and not,
 * value puts and gets, flag puts, and the local pack helpers.
 *
 * The remote side is named by the target's own addresses; pg_armci_remote translates them to
 * the symmetric addresses the engine takes, and fails with a message outside ARMCI memory.
 * Transfers complete locally before they return (gets with the data in place, puts and
 * accumulates with the source reusable), so a handle is complete as soon as its operation is
 * issued; remote completion is ARMCI_Fence / ARMCI_AllFence. */
#include "armci_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- Handles -------------------------------------------------------------------------------- */

static void note_handle(armci_hdl_t *hdl, int proc)
{
    if (hdl)
        hdl->target = proc;
}

void ARMCI_INIT_HANDLE(armci_hdl_t *hdl)
{
    hdl->target = -1;
    hdl->aggregate = 0;
}

void ARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t *handle)
{
    handle->aggregate = 1;
}

void ARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t *handle)
{
    handle->aggregate = 0;
}

static void check_handle(const char *call, const armci_hdl_t *hdl)
{
    if (!hdl)
        pg_fatal(call, "argument 'hdl' is NULL");
    if (hdl->target < -1 || hdl->target >= pg_world.npes)
        pg_fatal(call,
                 "argument 'hdl' holds process %d: it was not set up by ARMCI_INIT_HANDLE "
                 "or a non-blocking call",
                 hdl->target);
}

/* Every operation of the handle completed locally when it was issued. */
int PARMCI_Wait(armci_hdl_t *hdl)
{
    check_handle("ARMCI_Wait", hdl);
    hdl->target = -1;
    return 0;
}
PG_ARMCI_ALIAS(ARMCI_Wait)

int PARMCI_Test(armci_hdl_t *hdl)
{
    check_handle("ARMCI_Test", hdl);
    return 0; /* complete */
}
PG_ARMCI_ALIAS(ARMCI_Test)

int PARMCI_WaitProc(int proc)
{
    pg_armci_check_init("ARMCI_WaitProc");
    pg_armci_check_proc("ARMCI_WaitProc", "proc", proc);
    return 0;
}
PG_ARMCI_ALIAS(ARMCI_WaitProc)

int PARMCI_WaitAll(void)
{
    pg_armci_check_init("ARMCI_WaitAll");
    return 0;
}
PG_ARMCI_ALIAS(ARMCI_WaitAll)

/* ---- Contiguous ----------------------------------------------------------------------------- */

static void check_transfer(const char *call, const void *local, const char *local_arg, long bytes,
                           int proc)
{
    pg_armci_check_init(call);
    pg_armci_check_proc(call, "proc", proc);
    pg_armci_check_count(call, "bytes", bytes);
    pg_armci_check_local(call, local_arg, local, bytes);
}

static int put(const char *call, void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl)
{
    check_transfer(call, src, "src", bytes, proc);
    if (bytes > 0) {
        void *remote = pg_armci_remote(call, "dst", proc, dst, (size_t)bytes);
        pg_put(&pg_armci_ctx, remote, src, (size_t)bytes, proc);
    }
    note_handle(hdl, proc);
    return 0;
}

static int get(const char *call, void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl)
{
    check_transfer(call, dst, "dst", bytes, proc);
    if (bytes > 0) {
        void *remote = pg_armci_remote(call, "src", proc, src, (size_t)bytes);
        pg_get(&pg_armci_ctx, dst, remote, (size_t)bytes, proc);
    }
    note_handle(hdl, proc);
    return 0;
}

static void check_scale(const char *call, enum pg_acc_type type, const void *scale, long bytes)
{
    if (!scale)
        pg_fatal(call, "argument 'scale' is NULL");
    size_t size = pg_acc_type_size(type);
    if (bytes % (long)size)
        pg_fatal(call, "%ld bytes is not a whole number of %zu-byte elements", bytes, size);
}

static int acc(const char *call, int datatype, void *scale, void *src, void *dst, int bytes,
               int proc, armci_hdl_t *hdl)
{
    check_transfer(call, src, "src", bytes, proc);
    enum pg_acc_type type = pg_armci_acc_type(call, datatype);
    check_scale(call, type, scale, bytes);
    if (bytes > 0) {
        struct pg_strided one = {.levels = 0, .count = {(size_t)bytes}};
        void *remote = pg_armci_remote(call, "dst", proc, dst, (size_t)bytes);
        pg_acc_strided(&pg_armci_ctx, type, scale, remote, src, &one, proc);
    }
    note_handle(hdl, proc);
    return 0;
}

int PARMCI_Put(void *src, void *dst, int bytes, int proc)
{
    return put("ARMCI_Put", src, dst, bytes, proc, NULL);
}
PG_ARMCI_ALIAS(ARMCI_Put)

int PARMCI_Get(void *src, void *dst, int bytes, int proc)
{
    return get("ARMCI_Get", src, dst, bytes, proc, NULL);
}
PG_ARMCI_ALIAS(ARMCI_Get)

int PARMCI_Acc(int datatype, void *scale, void *src, void *dst, int bytes, int proc)
{
    return acc("ARMCI_Acc", datatype, scale, src, dst, bytes, proc, NULL);
}
PG_ARMCI_ALIAS(ARMCI_Acc)

int PARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl)
{
    return put("ARMCI_NbPut", src, dst, bytes, proc, hdl);
}
PG_ARMCI_ALIAS(ARMCI_NbPut)

int PARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl)
{
    return get("ARMCI_NbGet", src, dst, bytes, proc, hdl);
}
PG_ARMCI_ALIAS(ARMCI_NbGet)

int PARMCI_NbAcc(int datatype, void *scale, void *src, void *dst, int bytes, int proc,
                 armci_hdl_t *hdl)
{
    return acc("ARMCI_NbAcc", datatype, scale, src, dst, bytes, proc, hdl);
}
PG_ARMCI_ALIAS(ARMCI_NbAcc)

void ARMCI_Copy(void *src, void *dst, int size)
{
    pg_armci_check_count("ARMCI_Copy", "size", size);
    pg_armci_check_local("ARMCI_Copy", "src", src, size);
    pg_armci_check_local("ARMCI_Copy", "dst", dst, size);
    memmove(dst, src, (size_t)size);
}

/* ---- Strided -------------------------------------------------------------------------------- */

/* ARMCI's strided description as the engine's shape; its extent is 0 when it moves nothing. */
static void make_shape(const char *call, struct pg_strided *shape, const int *src_stride,
                       const int *dst_stride, const int *count, int levels)
{
    if (levels < 0 || levels > ARMCI_MAX_STRIDE_LEVEL)
        pg_fatal(call, "argument 'stride_levels' = %d is outside 0..%d", levels,
                 ARMCI_MAX_STRIDE_LEVEL);
    if (!count)
        pg_fatal(call, "argument 'count' is NULL");
    if (levels > 0 && (!src_stride || !dst_stride))
        pg_fatal(call, "a stride array is NULL with %d stride levels", levels);
    shape->levels = levels;
    for (int l = 0; l <= levels; l++) {
        if (count[l] < 0)
            pg_fatal(call, "argument 'count[%d]' = %d is negative", l, count[l]);
        shape->count[l] = (size_t)count[l];
    }
    for (int l = 0; l < levels; l++) {
        if (src_stride[l] < 0 || dst_stride[l] < 0)
            pg_fatal(call, "stride level %d is negative (src %d, dst %d)", l, src_stride[l],
                     dst_stride[l]);
        shape->src_stride[l] = src_stride[l];
        shape->dst_stride[l] = dst_stride[l];
    }
}

static size_t shape_bytes(const struct pg_strided *shape)
{
    size_t n = shape->count[0];
    for (int l = 1; l <= shape->levels; l++)
        n *= shape->count[l];
    return n;
}

enum direction { PUT, GET, ACC };

static int strided(const char *call, enum direction dir, int datatype, void *scale, void *src,
                   int *src_stride, void *dst, int *dst_stride, int *count, int levels, int proc,
                   armci_hdl_t *hdl)
{
    pg_armci_check_init(call);
    pg_armci_check_proc(call, "proc", proc);
    struct pg_strided shape;
    make_shape(call, &shape, src_stride, dst_stride, count, levels);
    size_t bytes = shape_bytes(&shape);
    note_handle(hdl, proc);
    if (bytes == 0)
        return 0;
    pg_armci_check_local(call, dir == GET ? "dst_ptr" : "src_ptr", dir == GET ? dst : src,
                         (long)bytes);
    int remote_is_dst = dir != GET;
    void *remote =
        pg_armci_remote(call, remote_is_dst ? "dst_ptr" : "src_ptr", proc,
                        remote_is_dst ? dst : src, pg_strided_extent(&shape, remote_is_dst));
    enum pg_acc_type type = dir == ACC ? pg_armci_acc_type(call, datatype) : PG_ACC_INT;
    if (dir == ACC)
        check_scale(call, type, scale, (long)shape.count[0]);
    switch (dir) {
    case PUT:
        pg_put_strided(&pg_armci_ctx, remote, src, &shape, proc);
        break;
    case GET:
        pg_get_strided(&pg_armci_ctx, dst, remote, &shape, proc);
        break;
    case ACC:
        pg_acc_strided(&pg_armci_ctx, type, scale, remote, src, &shape, proc);
        break;
    }
    return 0;
}

int PARMCI_PutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                int stride_levels, int proc)
{
    return strided("ARMCI_PutS", PUT, 0, NULL, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar,
                   count, stride_levels, proc, NULL);
}
PG_ARMCI_ALIAS(ARMCI_PutS)

int PARMCI_GetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                int stride_levels, int proc)
{
    return strided("ARMCI_GetS", GET, 0, NULL, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar,
                   count, stride_levels, proc, NULL);
}
PG_ARMCI_ALIAS(ARMCI_GetS)

int PARMCI_AccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr,
                int dst_stride_ar[], int count[], int stride_levels, int proc)
{
    return strided("ARMCI_AccS", ACC, datatype, scale, src_ptr, src_stride_ar, dst_ptr,
                   dst_stride_ar, count, stride_levels, proc, NULL);
}
PG_ARMCI_ALIAS(ARMCI_AccS)

int PARMCI_NbPutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                  int count[], int stride_levels, int proc, armci_hdl_t *hdl)
{
    return strided("ARMCI_NbPutS", PUT, 0, NULL, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar,
                   count, stride_levels, proc, hdl);
}
PG_ARMCI_ALIAS(ARMCI_NbPutS)

int PARMCI_NbGetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                  int count[], int stride_levels, int proc, armci_hdl_t *hdl)
{
    return strided("ARMCI_NbGetS", GET, 0, NULL, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar,
                   count, stride_levels, proc, hdl);
}
PG_ARMCI_ALIAS(ARMCI_NbGetS)

int PARMCI_NbAccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr,
                  int dst_stride_ar[], int count[], int stride_levels, int proc, armci_hdl_t *hdl)
{
    return strided("ARMCI_NbAccS", ACC, datatype, scale, src_ptr, src_stride_ar, dst_ptr,
                   dst_stride_ar, count, stride_levels, proc, hdl);
}
PG_ARMCI_ALIAS(ARMCI_NbAccS)

/* ---- Flag puts: the data, remote completion, then the flag ---------------------------------- */

static int set_flag(const char *call, int *flag, int value, int proc)
{
    pg_armci_fence(proc);
    return put(call, &value, flag, sizeof value, proc, NULL);
}

int PARMCI_Put_flag(void *src, void *dst, int size, int *flag, int value, int proc)
{
    put("ARMCI_Put_flag", src, dst, size, proc, NULL);
    return set_flag("ARMCI_Put_flag", flag, value, proc);
}
PG_ARMCI_ALIAS(ARMCI_Put_flag)

int PARMCI_PutS_flag(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                     int count[], int stride_levels, int *flag, int value, int proc)
{
    strided("ARMCI_PutS_flag", PUT, 0, NULL, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count,
            stride_levels, proc, NULL);
    return set_flag("ARMCI_PutS_flag", flag, value, proc);
}
PG_ARMCI_ALIAS(ARMCI_PutS_flag)

int ARMCI_PutS_flag_dir(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
                        int count[], int stride_levels, int *flag, int value, int proc)
{
    strided("ARMCI_PutS_flag_dir", PUT, 0, NULL, src_ptr, src_stride_arr, dst_ptr, dst_stride_arr,
            count, stride_levels, proc, NULL);
    return set_flag("ARMCI_PutS_flag_dir", flag, value, proc);
}

/* ---- Vectors -------------------------------------------------------------------------------- */

static int vector(const char *call, enum direction dir, int datatype, void *scale,
                  armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *hdl)
{
    pg_armci_check_init(call);
    pg_armci_check_proc(call, "proc", proc);
    pg_armci_check_count(call, "iov_len", iov_len);
    if (iov_len > 0 && !iov)
        pg_fatal(call, "argument 'iov' is NULL with iov_len = %d", iov_len);
    enum pg_acc_type type = dir == ACC ? pg_armci_acc_type(call, datatype) : PG_ACC_INT;
    for (int d = 0; d < iov_len; d++) {
        armci_giov_t *v = &iov[d];
        if (v->bytes < 0 || v->ptr_array_len < 0)
            pg_fatal(call, "iov[%d] has a negative %s (%d)", d,
                     v->bytes < 0 ? "bytes" : "ptr_array_len",
                     v->bytes < 0 ? v->bytes : v->ptr_array_len);
        if (v->bytes == 0 || v->ptr_array_len == 0)
            continue;
        if (!v->src_ptr_array || !v->dst_ptr_array)
            pg_fatal(call, "iov[%d] has a NULL address array", d);
        if (dir == ACC)
            check_scale(call, type, scale, v->bytes);
        void **remote_side = dir == GET ? v->src_ptr_array : v->dst_ptr_array;
        void **local_side = dir == GET ? v->dst_ptr_array : v->src_ptr_array;
        void **mine = malloc((size_t)v->ptr_array_len * sizeof *mine);
        if (!mine)
            pg_fatal(call, "out of memory for %d addresses", v->ptr_array_len);
        for (int i = 0; i < v->ptr_array_len; i++) {
            pg_armci_check_local(call, dir == GET ? "dst_ptr_array[i]" : "src_ptr_array[i]",
                                 local_side[i], v->bytes);
            mine[i] = pg_armci_remote(call, dir == GET ? "src_ptr_array[i]" : "dst_ptr_array[i]",
                                      proc, remote_side[i], (size_t)v->bytes);
        }
        struct pg_iovec engine = {
            .src = dir == GET ? mine : local_side,
            .dst = dir == GET ? local_side : mine,
            .count = (size_t)v->ptr_array_len,
            .bytes = (size_t)v->bytes,
        };
        if (dir == PUT)
            pg_put_vector(&pg_armci_ctx, &engine, proc);
        else if (dir == GET)
            pg_get_vector(&pg_armci_ctx, &engine, proc);
        else
            pg_acc_vector(&pg_armci_ctx, type, scale, &engine, proc);
        free(mine);
    }
    note_handle(hdl, proc);
    return 0;
}

int PARMCI_PutV(armci_giov_t *iov, int iov_len, int proc)
{
    return vector("ARMCI_PutV", PUT, 0, NULL, iov, iov_len, proc, NULL);
}
PG_ARMCI_ALIAS(ARMCI_PutV)

int PARMCI_GetV(armci_giov_t *iov, int iov_len, int proc)
{
    return vector("ARMCI_GetV", GET, 0, NULL, iov, iov_len, proc, NULL);
}
PG_ARMCI_ALIAS(ARMCI_GetV)

int PARMCI_AccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc)
{
    return vector("ARMCI_AccV", ACC, datatype, scale, iov, iov_len, proc, NULL);
}
PG_ARMCI_ALIAS(ARMCI_AccV)

int PARMCI_NbPutV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle)
{
    return vector("ARMCI_NbPutV", PUT, 0, NULL, iov, iov_len, proc, handle);
}
PG_ARMCI_ALIAS(ARMCI_NbPutV)

int PARMCI_NbGetV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle)
{
    return vector("ARMCI_NbGetV", GET, 0, NULL, iov, iov_len, proc, handle);
}
PG_ARMCI_ALIAS(ARMCI_NbGetV)

int PARMCI_NbAccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc,
                  armci_hdl_t *handle)
{
    return vector("ARMCI_NbAccV", ACC, datatype, scale, iov, iov_len, proc, handle);
}
PG_ARMCI_ALIAS(ARMCI_NbAccV)

/* ---- Values: X(Name, C type) ---------------------------------------------------------------- */

#define PG_ARMCI_VALUE_TYPES(X) \
    X(Int, int)                 \
    X(Long, long)               \
    X(Float, float)             \
    X(Double, double)

#define PG_ARMCI_DEFINE_VALUE(Name, T)                                         \
    int PARMCI_PutValue##Name(T src, void *dst, int proc)                      \
    {                                                                          \
        return put("ARMCI_PutValue" #Name, &src, dst, sizeof(T), proc, NULL);  \
    }                                                                          \
    PG_ARMCI_ALIAS(ARMCI_PutValue##Name)                                       \
    int PARMCI_NbPutValue##Name(T src, void *dst, int proc, armci_hdl_t *hdl)  \
    {                                                                          \
        return put("ARMCI_NbPutValue" #Name, &src, dst, sizeof(T), proc, hdl); \
    }                                                                          \
    PG_ARMCI_ALIAS(ARMCI_NbPutValue##Name)                                     \
    T PARMCI_GetValue##Name(void *src, int proc)                               \
    {                                                                          \
        T value;                                                               \
        get("ARMCI_GetValue" #Name, src, &value, sizeof(T), proc, NULL);       \
        return value;                                                          \
    }                                                                          \
    PG_ARMCI_ALIAS(ARMCI_GetValue##Name)
PG_ARMCI_VALUE_TYPES(PG_ARMCI_DEFINE_VALUE)
#undef PG_ARMCI_DEFINE_VALUE

/* ---- Local pack helpers --------------------------------------------------------------------- */

/* Copies between the strided region at ptr and the contiguous buffer buf, in either direction. */
static void pack(const char *call, char *ptr, int levels, const int *stride, const int *count,
                 char *buf, int into_strided)
{
    struct pg_strided shape;
    make_shape(call, &shape, stride, stride, count, levels);
    if (shape_bytes(&shape) == 0)
        return;
    size_t index[ARMCI_MAX_STRIDE_LEVEL] = {0};
    for (;;) {
        if (into_strided)
            memcpy(ptr, buf, shape.count[0]);
        else
            memcpy(buf, ptr, shape.count[0]);
        buf += shape.count[0];
        int l = 0;
        for (; l < levels; l++) {
            ptr += stride[l];
            if (++index[l] < shape.count[l + 1])
                break;
            ptr -= (ptrdiff_t)stride[l] * (ptrdiff_t)index[l];
            index[l] = 0;
        }
        if (l == levels)
            return;
    }
}

/* As in the original ARMCI: "write" packs the strided region into buf, "read" unpacks buf
 * into it. */
void armci_write_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf)
{
    pack("armci_write_strided", ptr, stride_levels, stride_arr, count, buf, 0);
}

void armci_read_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf)
{
    pack("armci_read_strided", ptr, stride_levels, stride_arr, count, buf, 1);
}

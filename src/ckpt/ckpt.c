/* Coordinated checkpoint/restart (Yu, ch4: bring every process to a consistent global state,
 * save, resume; SCR-style asynchronous flush from node memory).
 *
 * An image file, little-endian: struct image_header, then one struct image_entry per saved
 * object, then from data_offset (a multiple of IMAGE_ALIGN) the objects' bytes in that order,
 * the file padded to a multiple of IMAGE_ALIGN. data_crc covers the bytes, meta_crc the header
 * (its own field zero) and the entries: a restart checks the second before it compares
 * anything and the first before it returns. Both are computed while the objects are copied
 * into the image (each piece is checksummed while it is in cache), so the flush only writes.
 * The alignment lets the flush write with O_DIRECT, from the image straight to the device: a
 * copy into the page cache would take memory bandwidth and cache from the program's
 * computation. */
#define _GNU_SOURCE /* O_DIRECT, SCHED_IDLE */
#include "ckpt.h"

#include "atomics/atomics.h"
#include "coll/coll.h"
#include "memory/memory.h"
#include "onesided/onesided.h"
#include "pipeline/pipeline.h"
#include "runtime/runtime.h"
#include "startup/startup.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/ioprio.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define IMAGE_MAGIC "PGCKPT01"
#define IMAGE_VERSION 1
/* The copy into the image checksums this much at a time, while it is in cache. */
#define COPY_PIECE ((size_t)128 << 10)
/* The flush writes this much at a time: the device splits a direct write into requests of
 * its largest size (often 512 KiB-4 MiB) and has them all in flight, as writeback does. */
#define FLUSH_PIECE ((size_t)16 << 20)
/* O_DIRECT's alignment of buffers, offsets and lengths (any device's logical block). */
#define IMAGE_ALIGN ((size_t)4096)

struct image_header {
    char magic[8];
    uint32_t version, npes, pe, number;
    uint64_t nentries, data_offset, data_bytes;
    uint32_t meta_crc, data_crc;
};

enum entry_kind { ENTRY_HEAP, ENTRY_GROUP, ENTRY_REGISTERED };
static const char *const kind_name[] = {"symmetric heap object", "ARMCI group allocation",
                                        "registered region"};

struct image_entry {
    uint64_t where; /* offset from the heap's start, or the registration's index */
    uint64_t bytes;
    uint32_t kind, reserved;
};

struct region {
    void *addr;
    size_t bytes;
};
static struct region *regions;
static size_t nregions, regions_capacity;

/* The image in memory, kept between checkpoints (its pages stay mapped: a later copy does not
 * fault them in again). */
static char *image;
static size_t image_capacity;

/* The write of the last checkpoint, running while the program computes. */
static struct {
    pthread_t thread;
    int running;
    int fd;
    size_t file_bytes;
    char dir[PATH_MAX + 32];  /* DIR/ckpt-N.tmp */
    char file[PATH_MAX + 64]; /* .../pe-P.img */
    int number;
    int error;           /* errno of the failed step, 0 when it went well */
    const char *step;    /* "write", "fsync", ... */
    char root[PATH_MAX]; /* DIR */
    uint64_t generation; /* writes started by this job, the same on every PE */
} flush;

/* Writes of my node's PEs that have finished, counted at the node's leader (internal symmetric
 * memory): the PE whose write finishes last on its node marks the node done, and the node that
 * marks last commits. The checkpoint is thus committed the moment its last byte is on disk,
 * however long the program computes before it calls the library again. */
static uint64_t *node_writes_done;

static int next_number; /* 0: not known yet (read from the directory at the first save) */
static int quiesced;

int pg_ckpt_register(void *addr, size_t bytes)
{
    if (nregions == regions_capacity) {
        size_t capacity = regions_capacity ? 2 * regions_capacity : 16;
        struct region *grown = realloc(regions, capacity * sizeof *grown);
        if (!grown)
            return -1;
        regions = grown;
        regions_capacity = capacity;
    }
    regions[nregions++] = (struct region){addr, bytes};
    return 0;
}

/* Every PE passes its complaint (NULL: none). When some PE has one, the lowest such PE stops
 * the job with it and the others wait for the end, so the job prints one message. */
static void agree(const char *call, const char *complaint)
{
    long long mine = complaint ? pg_world.me : pg_world.npes, least, most;
    pg_boot_minmax(&mine, &least, &most, 1);
    if (least == pg_world.npes)
        return;
    if (least == pg_world.me)
        pg_fatal(call, "%s", complaint);
    for (;;)
        pause(); /* the failing PE's exit ends this process */
}

/* The newest committed checkpoint in dir, the same on every PE (or the job stops). */
static int agree_on_newest(const char *call, const char *dir, long long newest)
{
    long long least, most;
    pg_boot_minmax(&newest, &least, &most, 1);
    char complaint[PATH_MAX + 256];
    snprintf(complaint, sizeof complaint,
             "the PEs see different newest checkpoints in %s (%lld and %lld): is it on a file "
             "system every node shares?",
             dir, least, most);
    agree(call, least == most ? NULL : complaint);
    return (int)newest;
}

/* The number of ckpt-N: N > 0, or 0 when name is not a committed checkpoint's. */
static int committed_number(const char *name)
{
    int n, end = 0;
    if (sscanf(name, "ckpt-%d%n", &n, &end) != 1 || name[end] || n <= 0)
        return 0;
    return n;
}

/* The newest committed checkpoint in dir, 0 when none (or no dir). */
static int newest_committed(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int newest = 0;
    for (struct dirent *e; (e = readdir(d));) {
        int n = committed_number(e->d_name);
        if (n > newest)
            newest = n;
    }
    closedir(d);
    return newest;
}

/* Removes a checkpoint's directory and its images (PE 0, for older checkpoints and for what a
 * crashed save left). */
static void remove_checkpoint(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return;
    char file[PATH_MAX + 256];
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        unlink(file);
    }
    closedir(d);
    rmdir(path);
}

static size_t round_up(size_t bytes)
{
    return (bytes + IMAGE_ALIGN - 1) & ~(IMAGE_ALIGN - 1);
}

static void fsync_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* The commit: the rename of the whole directory, made durable, then the older checkpoints go.
 * Another node may have committed first (both saw every node done): then there is nothing to
 * rename any more. */
static void commit(void)
{
    char done[PATH_MAX + 64];
    snprintf(done, sizeof done, "%s/ckpt-%d", flush.root, flush.number);
    if (rename(flush.dir, done) != 0) {
        struct stat st;
        if (errno == ENOENT && stat(done, &st) == 0)
            return;
        flush.error = errno;
        flush.step = "commit (rename to ckpt-N)";
        return;
    }
    fsync_dir(flush.root);
    for (int n = flush.number - 1; n > 0; n--) {
        snprintf(done, sizeof done, "%s/ckpt-%d", flush.root, n);
        remove_checkpoint(done);
    }
}

/* Files in the directory path named prefix, a number, then suffix ("pe-", ".img" for the
 * images, "node-", ".done" for the marks of nodes whose PEs all wrote theirs); -1 when path
 * cannot be read. */
static long count_numbered(const char *path, const char *prefix, const char *suffix)
{
    DIR *d = opendir(path);
    if (!d)
        return -1;
    long n = 0;
    size_t plen = strlen(prefix);
    for (struct dirent *e; (e = readdir(d));) {
        const char *at = e->d_name;
        if (strncmp(at, prefix, plen) != 0 || !isdigit((unsigned char)at[plen]))
            continue;
        for (at += plen; isdigit((unsigned char)*at); at++)
            ;
        n += strcmp(at, suffix) == 0;
    }
    closedir(d);
    return n;
}

/* My image is on disk. The last of my node marks the node (a file, durable before it counts);
 * a marker that sees every node marked commits. */
static void mark_written(void)
{
    uint64_t target = flush.generation * (uint64_t)pg_world.local_size;
    if (__atomic_add_fetch(node_writes_done, 1, __ATOMIC_ACQ_REL) != target)
        return;
    char mark[PATH_MAX + 64];
    snprintf(mark, sizeof mark, "%s/node-%d.done", flush.dir, pg_world.node);
    int fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || close(fd) != 0) {
        flush.error = errno;
        flush.step = "mark the node's images written in";
        return;
    }
    fsync_dir(flush.dir);
    if (count_numbered(flush.dir, "node-", ".done") == pg_world.nnodes)
        commit();
}

/* The flush takes only what the program leaves: SCHED_IDLE runs it on a core nothing else
 * wants (a computing PE preempts it at once; when the PEs block, in the next checkpoint or
 * the finalize, it has the cores), and the lowest best-effort I/O priority puts its writes
 * behind the program's own. A thread may always lower itself; where it cannot, the flush just
 * runs at the program's priority. */
static void lower_priority(void)
{
    struct sched_param none = {0};
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &none);
    syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 7));
}

static void *flush_main(void *unused)
{
    (void)unused;
    lower_priority();
    flush.error = 0;
    for (size_t at = 0; at < flush.file_bytes;) {
        size_t n = flush.file_bytes - at < FLUSH_PIECE ? flush.file_bytes - at : FLUSH_PIECE;
        ssize_t w = pwrite(flush.fd, image + at, n, (off_t)at);
        if (w <= 0) {
            flush.error = w < 0 ? errno : ENOSPC;
            flush.step = "write";
            break;
        }
        at += (size_t)w;
    }
    if (!flush.error && fsync(flush.fd) != 0) {
        flush.error = errno;
        flush.step = "fsync";
    }
    if (close(flush.fd) != 0 && !flush.error) {
        flush.error = errno;
        flush.step = "close";
    }
    if (!flush.error)
        mark_written();
    return NULL;
}

/* Waits for the last checkpoint's write on every PE: after it the checkpoint is committed
 * (the last writer committed it before its thread ended), or the job stopped with the error.
 * Collective; nothing to do when no write ran. */
static void finish_flush(const char *call)
{
    if (!flush.running)
        return; /* the same on every PE: checkpoints are collective */
    pthread_join(flush.thread, NULL);
    flush.running = 0;
    char complaint[PATH_MAX + 256];
    if (flush.error)
        snprintf(complaint, sizeof complaint, "checkpoint %d: could not %s %s: %s", flush.number,
                 flush.step, flush.file, strerror(flush.error));
    agree(call, flush.error ? complaint : NULL);
}

static void check_path(const char *call, const char *dir)
{
    if (strlen(dir) > PATH_MAX - 64)
        pg_fatal(call, "argument 'dir' is longer than %d characters", PATH_MAX - 64);
}

/* A held lock would be saved held, and the restarted job could never take it: the complaint,
 * or NULL when this PE holds none. */
static const char *lock_complaint(char *text, size_t size)
{
    const char *taken_by;
    long held = pg_locks_held(&taken_by);
    if (held <= 0)
        return NULL;
    snprintf(text, size,
             "PE %d holds %ld lock%s (the last taken by %s): release every lock and mutex "
             "before a checkpoint",
             pg_world.me, held, held == 1 ? "" : "s", taken_by ? taken_by : "?");
    return text;
}

static void check_not_quiesced(const char *call)
{
    if (quiesced)
        pg_fatal(call, "the network is quiesced: call shmemx_ckpt_resume first");
}

/* The saved objects as entries: the live symmetric allocations, then the registered regions.
 * Returns the count (entries allocated by malloc). */
static size_t list_entries(const char *call, struct image_entry **out)
{
    size_t nobjects = pg_mem_objects(NULL, 0);
    struct pg_mem_object *objects = malloc((nobjects + 1) * sizeof *objects);
    struct image_entry *e = malloc((nobjects + nregions + 1) * sizeof *e);
    if (!objects || !e)
        pg_fatal(call, "out of memory for the list of %zu allocations", nobjects + nregions);
    pg_mem_objects(objects, nobjects);
    size_t n = 0;
    for (size_t i = 0; i < nobjects; i++)
        e[n++] = (struct image_entry){objects[i].offset, objects[i].len,
                                      objects[i].in_sub_arena ? ENTRY_GROUP : ENTRY_HEAP, 0};
    for (size_t i = 0; i < nregions; i++)
        e[n++] = (struct image_entry){i, regions[i].bytes, ENTRY_REGISTERED, 0};
    free(objects);
    *out = e;
    return n;
}

static void *entry_memory(const struct image_entry *e)
{
    if (e->kind == ENTRY_REGISTERED)
        return regions[e->where].addr;
    return pg_heap_base() + e->where;
}

/* memcpy, and the CRC32C of the bytes continued from crc. */
static uint32_t copy_summed(char *dest, const char *src, size_t bytes, uint32_t crc)
{
    for (size_t at = 0; at < bytes; at += COPY_PIECE) {
        size_t n = bytes - at < COPY_PIECE ? bytes - at : COPY_PIECE;
        memcpy(dest + at, src + at, n);
        crc = pg_crc32c(crc, dest + at, n);
    }
    return crc;
}

int pg_ckpt_save(const char *call, const char *dir)
{
    check_path(call, dir);
    check_not_quiesced(call);
    finish_flush(call);
    if (!node_writes_done) { /* the first save: the same point on every PE */
        uint64_t *mine = pg_mem_internal_alloc(sizeof *mine);
        node_writes_done = pg_mem_peer_ptr(mine, pg_world.local_pes[0]);
    }
    if (next_number == 0)
        next_number = agree_on_newest(call, dir, newest_committed(dir)) + 1;
    int number = next_number++;

    /* Few collective steps, each a synchronization of the job: the directory and the locks,
     * then the files (which doubles as the sync after the quiet). */
    snprintf(flush.root, sizeof flush.root, "%s", dir);
    snprintf(flush.dir, sizeof flush.dir, "%s/ckpt-%d.tmp", dir, number);
    char complaint[PATH_MAX + 256];
    const char *failed = lock_complaint(complaint, sizeof complaint);
    if (pg_world.me == 0 && !failed) {
        remove_checkpoint(flush.dir); /* what a save that crashed left */
        const char *cannot = mkdir(dir, 0755) != 0 && errno != EEXIST ? dir
                             : mkdir(flush.dir, 0755) != 0            ? flush.dir
                                                                      : NULL;
        if (cannot) {
            snprintf(complaint, sizeof complaint, "cannot create directory %s: %s", cannot,
                     strerror(errno));
            failed = complaint;
        }
    }
    agree(call, failed);
    snprintf(flush.file, sizeof flush.file, "%s/pe-%d.img", flush.dir, pg_world.me);
    int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
    flush.fd = open(flush.file, flags | O_DIRECT, 0644);
    if (flush.fd < 0 && errno == EINVAL) /* a file system without direct I/O (tmpfs) */
        flush.fd = open(flush.file, flags, 0644);
    if (flush.fd < 0)
        snprintf(complaint, sizeof complaint, "cannot create %s: %s", flush.file, strerror(errno));
    /* Consistency: my operations are applied at their targets; after the agreement (a
     * synchronization of every PE) everybody's are, and nothing is in flight. Nobody issues
     * more until every image is taken (the sync after the copy). */
    pg_quiet(NULL);
    agree(call, flush.fd < 0 ? complaint : NULL);

    struct image_entry *entries;
    size_t nentries = list_entries(call, &entries);
    size_t meta = sizeof(struct image_header) + nentries * sizeof *entries, data = 0;
    for (size_t i = 0; i < nentries; i++)
        data += entries[i].bytes;
    size_t data_offset = round_up(meta), file_bytes = round_up(data_offset + data);
    if (file_bytes > image_capacity) {
        free(image);
        image = NULL;
        if (posix_memalign((void **)&image, IMAGE_ALIGN, file_bytes) != 0)
            pg_fatal(call, "out of memory for a checkpoint image of %zu bytes", file_bytes);
        image_capacity = file_bytes;
    }
    memset(image + meta, 0, data_offset - meta);
    memset(image + data_offset + data, 0, file_bytes - data_offset - data);
    struct image_header *h = (struct image_header *)image;
    *h = (struct image_header){.version = IMAGE_VERSION,
                               .npes = (uint32_t)pg_world.npes,
                               .pe = (uint32_t)pg_world.me,
                               .number = (uint32_t)number,
                               .nentries = nentries,
                               .data_offset = data_offset,
                               .data_bytes = data};
    memcpy(h->magic, IMAGE_MAGIC, sizeof h->magic);
    memcpy(h + 1, entries, nentries * sizeof *entries);
    char *at = image + data_offset;
    uint32_t crc = 0;
    for (size_t i = 0; i < nentries; i++) {
        crc = copy_summed(at, entry_memory(&entries[i]), entries[i].bytes, crc);
        at += entries[i].bytes;
    }
    free(entries);
    h->data_crc = crc;
    h->meta_crc = pg_crc32c(0, image, meta);
    pg_sync_all();

    flush.file_bytes = file_bytes;
    flush.number = number;
    flush.generation++;
    int rc = pthread_create(&flush.thread, NULL, flush_main, NULL);
    if (rc != 0)
        pg_fatal(call, "cannot start the thread that writes the checkpoint: %s", strerror(rc));
    flush.running = 1;
    return 0;
}

/* The first difference between the saved entries and the program's, or NULL. */
static const char *compare_entries(const struct image_entry *saved, size_t nsaved,
                                   const struct image_entry *now, size_t nnow, char *text,
                                   size_t size)
{
    for (int kind = ENTRY_HEAP; kind <= ENTRY_REGISTERED; kind++) {
        size_t a = 0, b = 0;
        for (size_t i = 0; i < nsaved; i++)
            a += saved[i].kind == (uint32_t)kind;
        for (size_t i = 0; i < nnow; i++)
            b += now[i].kind == (uint32_t)kind;
        if (a != b) {
            snprintf(text, size, "the checkpoint has %zu %ss, this program %zu", a, kind_name[kind],
                     b);
            return text;
        }
    }
    for (size_t i = 0, of_kind[ENTRY_REGISTERED + 1] = {0}; i < nsaved; i++) {
        const struct image_entry *s = &saved[i], *n = &now[i];
        size_t index = of_kind[n->kind]++; /* the message counts each kind on its own */
        if (s->kind != n->kind || s->where != n->where || s->bytes != n->bytes) {
            if (n->kind == ENTRY_REGISTERED)
                snprintf(text, size,
                         "registered region %llu has %llu bytes in the checkpoint, "
                         "%llu in this program",
                         (unsigned long long)n->where, (unsigned long long)s->bytes,
                         (unsigned long long)n->bytes);
            else
                snprintf(text, size,
                         "%s %zu is %llu bytes at heap offset %llu in the checkpoint, "
                         "%llu bytes at offset %llu in this program",
                         kind_name[n->kind], index, (unsigned long long)s->bytes,
                         (unsigned long long)s->where, (unsigned long long)n->bytes,
                         (unsigned long long)n->where);
            return text;
        }
    }
    return NULL;
}

static ssize_t read_full(int fd, void *buf, size_t len, off_t at)
{
    size_t done = 0;
    while (done < len) {
        ssize_t r = pread(fd, (char *)buf + done, len - done, at + (off_t)done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r < 0 ? -1 : (ssize_t)done;
        done += (size_t)r;
    }
    return (ssize_t)done;
}

int pg_ckpt_restore(const char *call, const char *dir)
{
    check_path(call, dir);
    check_not_quiesced(call);
    finish_flush(call);
    int number = agree_on_newest(call, dir, newest_committed(dir));
    if (number == 0)
        return 0;
    char path[PATH_MAX + 32], file[PATH_MAX + 64], text[2 * PATH_MAX + 256];
    snprintf(path, sizeof path, "%s/ckpt-%d", dir, number);
    long images = count_numbered(path, "pe-", ".img");
    snprintf(text, sizeof text, "checkpoint %d in %s holds the images of %ld PEs; this job has %d",
             number, dir, images, pg_world.npes);
    agree(call, images != pg_world.npes ? text : NULL);

    snprintf(file, sizeof file, "%s/pe-%d.img", path, pg_world.me);
    const char *complaint = NULL;
    struct image_header h;
    struct image_entry *saved = NULL;
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(text, sizeof text, "cannot open %s, the image of PE %d: %s", file, pg_world.me,
                 strerror(errno));
        complaint = text;
    } else if (read_full(fd, &h, sizeof h, 0) != (ssize_t)sizeof h ||
               memcmp(h.magic, IMAGE_MAGIC, sizeof h.magic) != 0 || h.version != IMAGE_VERSION ||
               h.nentries > (1ull << 32)) {
        snprintf(text, sizeof text,
                 "%s, the image of PE %d, is corrupt (not a checkpoint image "
                 "of this version, or truncated)",
                 file, pg_world.me);
        complaint = text;
    } else {
        size_t meta = sizeof h + h.nentries * sizeof *saved;
        char *buf = malloc(meta);
        if (!buf)
            pg_fatal(call, "out of memory reading %s", file);
        uint32_t crc = h.meta_crc;
        if (read_full(fd, buf, meta, 0) != (ssize_t)meta) {
            snprintf(text, sizeof text, "%s, the image of PE %d, is truncated", file, pg_world.me);
            complaint = text;
        } else {
            struct image_header *b = (struct image_header *)buf;
            b->meta_crc = 0;
            if (pg_crc32c(0, buf, meta) != crc) {
                snprintf(text, sizeof text,
                         "%s, the image of PE %d, is corrupt (CRC32C of its "
                         "header and table)",
                         file, pg_world.me);
                complaint = text;
            } else if (h.data_offset < meta) {
                snprintf(text, sizeof text,
                         "%s, the image of PE %d, is corrupt (its data "
                         "overlaps its table)",
                         file, pg_world.me);
                complaint = text;
            } else if (h.npes != (uint32_t)pg_world.npes || h.pe != (uint32_t)pg_world.me) {
                snprintf(text, sizeof text, "%s was saved by PE %u of %u; this is PE %d of %d",
                         file, h.pe, h.npes, pg_world.me, pg_world.npes);
                complaint = text;
            }
        }
        saved = malloc(h.nentries * sizeof *saved + 1);
        if (!saved)
            pg_fatal(call, "out of memory reading %s", file);
        memcpy(saved, buf + sizeof h, h.nentries * sizeof *saved);
        free(buf);
    }
    agree(call, complaint);

    struct image_entry *now;
    size_t nnow = list_entries(call, &now);
    char what[512];
    complaint = compare_entries(saved, h.nentries, now, nnow, what, sizeof what);
    if (complaint) {
        snprintf(text, sizeof text, "the allocations differ from checkpoint %d's in %s: %s", number,
                 dir, what);
        complaint = text;
    }
    agree(call, complaint);

    /* Nobody may still be writing into the memory being restored. */
    pg_quiet(NULL);
    pg_sync_all();
    off_t at = (off_t)h.data_offset;
    uint32_t crc = 0;
    for (size_t i = 0; i < nnow && !complaint; i++) {
        char *dest = entry_memory(&now[i]);
        size_t bytes = now[i].bytes;
        if (read_full(fd, dest, bytes, at) != (ssize_t)bytes) {
            snprintf(text, sizeof text, "%s, the image of PE %d, is truncated", file, pg_world.me);
            complaint = text;
        }
        crc = pg_crc32c(crc, dest, bytes);
        at += (off_t)bytes;
    }
    if (!complaint && crc != h.data_crc) {
        snprintf(text, sizeof text,
                 "%s, the image of PE %d, is corrupt (CRC32C 0x%08x of its "
                 "data, 0x%08x saved)",
                 file, pg_world.me, crc, h.data_crc);
        complaint = text;
    }
    close(fd);
    free(saved);
    free(now);
    agree(call, complaint);
    pg_sync_all();
    next_number = number + 1;
    return number;
}

void pg_ckpt_quiesce(const char *call)
{
    check_not_quiesced(call);
    finish_flush(call);
    pg_quiet(NULL);
    pg_sync_all();
    pg_pipe_suspend();
    quiesced = 1;
}

void pg_ckpt_resume(const char *call)
{
    if (!quiesced)
        pg_fatal(call, "the network is not quiesced (shmemx_ckpt_quiesce)");
    pg_pipe_resume();
    quiesced = 0;
    pg_sync_all();
}

void pg_ckpt_fini(void)
{
    const char *call = pg_api_call ? pg_api_call : "finalize";
    finish_flush(call);
    if (quiesced) /* the finalize's own syncs need the network */
        pg_ckpt_resume(call);
    free(image);
    image = NULL;
    image_capacity = 0;
}

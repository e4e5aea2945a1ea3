/* What the program is made of: the symbols its loaded objects import, read from their files'
 * dynamic symbol tables (the section headers are not mapped at run time). */
#define _GNU_SOURCE
#include "runtime.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct import_search {
    const char *const *prefixes;
    const char *skip_object; /* the file that holds this library: its imports are ours */
    int found;
};

static int has_prefix(const char *name, const char *const *prefixes)
{
    for (; *prefixes; prefixes++)
        if (strncmp(name, *prefixes, strlen(*prefixes)) == 0)
            return 1;
    return 0;
}

static int read_at(int fd, void *buf, size_t len, off_t at)
{
    return pread(fd, buf, len, at) == (ssize_t)len ? 0 : -1;
}

struct symbol_table {
    Elf64_Sym *symbols;
    size_t count;
    char *strings;
    size_t strings_size;
};

static void free_table(struct symbol_table *t)
{
    free(t->symbols);
    free(t->strings);
    *t = (struct symbol_table){0};
}

/* Reads the first section of this type (SHT_DYNSYM, SHT_SYMTAB) of the ELF file at path, with
 * its strings. 0, or -1 when there is none or it cannot be read (a 64-bit file of this
 * machine's byte order is assumed). */
static int read_symbols(const char *path, unsigned type, struct symbol_table *t)
{
    *t = (struct symbol_table){0};
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int status = -1;
    Elf64_Ehdr eh;
    Elf64_Shdr *sections = NULL;
    if (read_at(fd, &eh, sizeof eh, 0) != 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr))
        goto out;
    sections = malloc((size_t)eh.e_shnum * sizeof *sections);
    if (!sections ||
        read_at(fd, sections, (size_t)eh.e_shnum * sizeof *sections, (off_t)eh.e_shoff) != 0)
        goto out;
    for (int i = 0; i < eh.e_shnum; i++) {
        const Elf64_Shdr *table = &sections[i];
        if (table->sh_type != type || table->sh_link >= eh.e_shnum)
            continue;
        const Elf64_Shdr *names = &sections[table->sh_link];
        t->symbols = malloc(table->sh_size);
        t->strings = malloc(names->sh_size + 1);
        if (t->symbols && t->strings &&
            read_at(fd, t->symbols, table->sh_size, (off_t)table->sh_offset) == 0 &&
            read_at(fd, t->strings, names->sh_size, (off_t)names->sh_offset) == 0) {
            t->strings[names->sh_size] = '\0';
            t->strings_size = names->sh_size;
            t->count = table->sh_size / sizeof *t->symbols;
            status = 0;
        }
        break;
    }
out:
    if (status != 0)
        free_table(t);
    free(sections);
    close(fd);
    return status;
}

/* 1 when the ELF file at path has an undefined dynamic symbol starting with a prefix. */
static int file_imports(const char *path, const char *const *prefixes)
{
    struct symbol_table t;
    if (read_symbols(path, SHT_DYNSYM, &t) != 0)
        return 0;
    int found = 0;
    for (size_t i = 0; i < t.count && !found; i++)
        found = t.symbols[i].st_shndx == SHN_UNDEF && t.symbols[i].st_name < t.strings_size &&
                has_prefix(t.strings + t.symbols[i].st_name, prefixes);
    free_table(&t);
    return found;
}

static int search_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct import_search *search = arg;
    /* The main program has an empty name; the vDSO has no file. */
    const char *path = info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
    if (info->dlpi_name[0] && info->dlpi_name[0] != '/')
        return 0;
    if (search->skip_object && strcmp(path, search->skip_object) == 0)
        return 0;
    search->found = file_imports(path, search->prefixes);
    return search->found;
}

int pg_program_imports(const char *const *prefixes)
{
    Dl_info self;
    struct import_search search = {prefixes, NULL, 0};
    /* Linked statically into the program, our own imports cannot be told from its. */
    if (dladdr((void *)pg_program_imports, &self) == 0 || !self.dli_fname ||
        strchr(self.dli_fname, '/') == NULL)
        return -1;
    search.skip_object = self.dli_fname;
    struct stat st_self, st_exe;
    if (stat(self.dli_fname, &st_self) == 0 && stat("/proc/self/exe", &st_exe) == 0 &&
        st_self.st_ino == st_exe.st_ino && st_self.st_dev == st_exe.st_dev)
        return -1;
    dl_iterate_phdr(search_object, &search);
    return search.found;
}

/* The executable's data objects, sorted by address, loaded at the first question. */
struct data_object {
    uintptr_t start;
    size_t size;
};
static struct data_object *objects;
static size_t nobjects;
static pthread_once_t objects_once = PTHREAD_ONCE_INIT;

static int by_start(const void *a, const void *b)
{
    const struct data_object *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

static int executable_base(struct dl_phdr_info *info, size_t size, void *base)
{
    (void)size;
    *(uintptr_t *)base = info->dlpi_addr;
    return 1; /* the first object is the executable */
}

static void load_objects(void)
{
    struct symbol_table t;
    if (read_symbols("/proc/self/exe", SHT_SYMTAB, &t) != 0 &&
        read_symbols("/proc/self/exe", SHT_DYNSYM, &t) != 0)
        return; /* stripped: no extents to check against */
    uintptr_t base = 0;
    dl_iterate_phdr(executable_base, &base);
    objects = malloc(t.count * sizeof *objects);
    for (size_t i = 0; objects && i < t.count; i++) {
        const Elf64_Sym *sym = &t.symbols[i];
        if (ELF64_ST_TYPE(sym->st_info) == STT_OBJECT && sym->st_size > 0 &&
            sym->st_shndx != SHN_UNDEF && sym->st_shndx != SHN_ABS)
            objects[nobjects++] = (struct data_object){base + sym->st_value, sym->st_size};
    }
    free_table(&t);
    if (objects)
        qsort(objects, nobjects, sizeof *objects, by_start);
}

int pg_program_object(const void *addr, char **start, size_t *size)
{
    pthread_once(&objects_once, load_objects);
    uintptr_t at = (uintptr_t)addr;
    size_t lo = 0, hi = nobjects; /* the last object starting at or before addr */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (objects[mid].start <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || at - objects[lo - 1].start >= objects[lo - 1].size)
        return -1;
    *start = (char *)objects[lo - 1].start;
    *size = objects[lo - 1].size;
    return 0;
}

/* What the program is made of: the symbols its loaded objects import, read from their files'
 * dynamic symbol tables (the section headers are not mapped at run time). */
#define _GNU_SOURCE
#include "runtime.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
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

/* 1 when the ELF file at path has an undefined dynamic symbol starting with a prefix; 0 when
 * not or when it cannot be read (a 64-bit file of this machine's byte order is assumed). */
static int file_imports(const char *path, const char *const *prefixes)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int found = 0;
    Elf64_Ehdr eh;
    Elf64_Shdr *sections = NULL;
    char *strings = NULL;
    Elf64_Sym *symbols = NULL;
    if (read_at(fd, &eh, sizeof eh, 0) != 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr))
        goto out;
    sections = malloc((size_t)eh.e_shnum * sizeof *sections);
    if (!sections ||
        read_at(fd, sections, (size_t)eh.e_shnum * sizeof *sections, (off_t)eh.e_shoff) != 0)
        goto out;
    for (int i = 0; i < eh.e_shnum && !found; i++) {
        const Elf64_Shdr *dynsym = &sections[i];
        if (dynsym->sh_type != SHT_DYNSYM || dynsym->sh_link >= eh.e_shnum)
            continue;
        const Elf64_Shdr *dynstr = &sections[dynsym->sh_link];
        symbols = malloc(dynsym->sh_size);
        strings = malloc(dynstr->sh_size + 1);
        if (!symbols || !strings ||
            read_at(fd, symbols, dynsym->sh_size, (off_t)dynsym->sh_offset) != 0 ||
            read_at(fd, strings, dynstr->sh_size, (off_t)dynstr->sh_offset) != 0)
            goto out;
        strings[dynstr->sh_size] = '\0';
        for (size_t s = 0; s < dynsym->sh_size / sizeof *symbols && !found; s++)
            found = symbols[s].st_shndx == SHN_UNDEF && symbols[s].st_name < dynstr->sh_size &&
                    has_prefix(strings + symbols[s].st_name, prefixes);
    }
out:
    free(symbols);
    free(strings);
    free(sections);
    close(fd);
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

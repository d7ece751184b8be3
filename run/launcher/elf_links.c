/*
 * elf_links.c - does a program already link libencore?  Then LD_PRELOAD
 * must not load a second copy.  Reads DT_NEEDED from the ELF file itself
 * (64-bit, native byte order); anything else (a script, 32-bit ELF) is
 * "no", which is right for interpreters such as python3.
 */
#include "enc.h"
#include "launcher/launcher.h"

#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static bool in_file(size_t size, uint64_t off, uint64_t len)
{
    return off <= size && len <= size - off;
}

/* Looks through one SHT_DYNAMIC section using its linked string table. */
static bool dyn_needs(const uint8_t *p, size_t size, const Elf64_Shdr *sh,
                      const Elf64_Shdr *str)
{
    const Elf64_Dyn *d = (const Elf64_Dyn *)(p + sh->sh_offset);
    size_t n = sh->sh_size / sizeof(*d);

    if (!in_file(size, sh->sh_offset, sh->sh_size) || !in_file(size, str->sh_offset, str->sh_size))
        return false;
    for (size_t i = 0; i < n && d[i].d_tag != DT_NULL; i++) {
        const char *name = (const char *)p + str->sh_offset + d[i].d_un.d_val;

        if (d[i].d_tag != DT_NEEDED || d[i].d_un.d_val >= str->sh_size)
            continue;
        if (strncmp(name, "libencore.so", 12) == 0 &&
            memchr(name, '\0', str->sh_size - d[i].d_un.d_val) != NULL)
            return true;
    }
    return false;
}

static bool elf_needs(const uint8_t *p, size_t size)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)p;
    const Elf64_Shdr *sh;

    if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        !in_file(size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
        return false;
    sh = (const Elf64_Shdr *)(p + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++)
        if (sh[i].sh_type == SHT_DYNAMIC && sh[i].sh_link < eh->e_shnum &&
            dyn_needs(p, size, &sh[i], &sh[sh[i].sh_link]))
            return true;
    return false;
}

bool enc_run_elf_needs_libencore(const char *path)
{
    struct stat st;
    void *p;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    bool rv = false;

    if (fd < 0)
        return false;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
        p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            rv = elf_needs(p, (size_t)st.st_size);
            munmap(p, (size_t)st.st_size);
        }
    }
    close(fd);
    return rv;
}

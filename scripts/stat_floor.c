/* The kernel's floor for a stat-based freshness check: readdir plus one fstatat per
 * bundle's learning.yaml, in C, with no Python in the way. Compare it with the
 * "freshness check" and "stat floor" rows of docs/performance.md on the same machine.
 *
 *     cc -O2 scripts/stat_floor.c -o /tmp/stat_floor && /tmp/stat_floor path/to/.orbit/learnings
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    const char *folder = argc > 1 ? argv[1] : ".orbit/learnings";
    for (int run = 0; run < 10; run++) {
        struct timespec start, end;
        clock_gettime(CLOCK_MONOTONIC, &start);
        int fd = open(folder, O_RDONLY | O_DIRECTORY);
        if (fd < 0) {
            perror(folder);
            return 1;
        }
        DIR *dir = fdopendir(dup(fd));
        struct dirent *entry;
        struct stat st;
        char path[512];
        int count = 0;
        while ((entry = readdir(dir)) != NULL) {
            if (entry->d_name[0] == '.') continue;
            snprintf(path, sizeof path, "%s/learning.yaml", entry->d_name);
            if (fstatat(fd, path, &st, 0) == 0) count++;
        }
        closedir(dir);
        close(fd);
        clock_gettime(CLOCK_MONOTONIC, &end);
        double ms = (end.tv_sec - start.tv_sec) * 1e3 + (end.tv_nsec - start.tv_nsec) / 1e6;
        printf("%d files stat'ed in %.2f ms\n", count, ms);
    }
    return 0;
}

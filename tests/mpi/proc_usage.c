/* The probes of proc_usage.h, from /proc/self and mallinfo2(). */
#define _GNU_SOURCE
#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proc_usage.h"

long usage_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6)) kib = atol(line + 6);
    if (f) fclose(f);
    return kib;
}

long usage_heap_kib(void)
{
    struct mallinfo2 mi = mallinfo2(); /* every arena: live bytes, not the pages they sit on */
    return (long)((mi.uordblks + mi.hblkhd) >> 10);
}

long usage_maps(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    long n = 0;
    int ch;
    while (f && (ch = fgetc(f)) != EOF) n += ch == '\n';
    if (f) fclose(f);
    return n;
}

long usage_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    long n = 0;
    while (d && readdir(d)) n++;
    if (d) closedir(d);
    return n;
}

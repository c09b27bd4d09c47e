/*
 * Which CPU this is, as /proc/cpuinfo names its first processor. The CPU model of a machine kind
 * can change from one day to the next while its name stays ("AMD EPYC" in a virtual machine is a
 * Zen 3 one day and a Zen 5 the next): the learned selection keys its cache on these lines, and
 * vred-info and the benchmarks print family and model next to the name so that a figure says
 * which CPU it came from.
 */
#include <stdio.h>
#include <string.h>
#include "kernels/kernel.h"
#include "vred.h"

size_t vred_cpuinfo(const char *key, char *buf, size_t size)
{
    if (size) buf[0] = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return 0;
    char line[512];
    size_t k = strlen(key), len = 0;
    /* The first processor's block ends at the first empty line. */
    while (fgets(line, sizeof line, f) && line[0] != '\n') {
        char *colon = strchr(line, ':');
        if (!colon) continue;
        size_t n = (size_t)(colon - line);
        while (n && (line[n - 1] == ' ' || line[n - 1] == '\t')) n--;
        if (n != k || strncmp(line, key, k)) continue;
        char *v = colon + 1 + strspn(colon + 1, " \t");
        v[strcspn(v, "\n")] = 0;
        len = strlen(v);
        if (size) snprintf(buf, size, "%s", v);
        break;
    }
    fclose(f);
    return len;
}

void vred_cpu_name(char *buf, size_t size)
{
    char name[256], fam[32], model[32], impl[32], part[32];
    vred_cpuinfo("model name", name, sizeof name);
    if (vred_cpuinfo("cpu family", fam, sizeof fam) && vred_cpuinfo("model", model, sizeof model))
        snprintf(buf, size, "%s (family %s model %s)", name[0] ? name : "unknown CPU", fam, model);
    else if (vred_cpuinfo("CPU implementer", impl, sizeof impl) &&
             vred_cpuinfo("CPU part", part, sizeof part))
        snprintf(buf, size, "%s (implementer %s part %s)", name[0] ? name : "Arm CPU", impl, part);
    else
        snprintf(buf, size, "%s", name[0] ? name : "unknown CPU");
}

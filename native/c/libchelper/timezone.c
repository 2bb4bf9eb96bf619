/*
 * The default time zone's id (com.oracle.svm.core.LibCHelper.SVM_FindJavaTZmd, called by the image's
 * TimeZone.getSystemTimeZoneID): what the JDK's TimeZone_md.c findJavaTZ_md finds on Linux, in its order:
 * TZ (a leading ':' dropped; a path under zoneinfo/ gives the name after it), else /etc/timezone, else the target
 * of the /etc/localtime link below zoneinfo/. Returns a malloc'd string the caller frees, or NULL (the JDK then
 * uses GMT). The mapping table argument is for Windows only. Unlike the JDK, a /etc/localtime that is a copy
 * rather than a link is not compared with every zoneinfo file: that yields NULL.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *after_zoneinfo(const char *path) {
    const char *marker = strstr(path, "zoneinfo/");
    return marker != NULL ? strdup(marker + strlen("zoneinfo/")) : NULL;
}

char *SVM_FindJavaTZmd(const char *tzMappings, int length) {
    (void) tzMappings;
    (void) length;
    const char *tz = getenv("TZ");
    if (tz != NULL && *tz != '\0') {
        if (*tz == ':') {
            tz++;
        }
        if (*tz == '/') {
            char *name = after_zoneinfo(tz);
            if (name != NULL) {
                return name;
            }
        } else if (*tz != '\0') {
            return strdup(tz);
        }
    }
    FILE *f = fopen("/etc/timezone", "r");
    if (f != NULL) {
        char line[256];
        char *read = fgets(line, sizeof(line), f);
        fclose(f);
        if (read != NULL) {
            line[strcspn(line, " \t\r\n")] = '\0';
            if (line[0] != '\0') {
                return strdup(line);
            }
        }
    }
    char target[PATH_MAX];
    ssize_t n = readlink("/etc/localtime", target, sizeof(target) - 1);
    if (n > 0) {
        target[n] = '\0';
        return after_zoneinfo(target);
    }
    return NULL;
}

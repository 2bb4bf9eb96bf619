/*
 * The process locale for the image's user.language/user.country/... properties (com.oracle.svm.core.c.locale
 * .LocaleCHelper, struct in include/svm_locale.h): what the JDK's java_props_md.c ParseLocale derives from the POSIX
 * locale names. Format properties come from LC_CTYPE, display properties from LC_MESSAGES. "C" and "POSIX" mean
 * en_US, as in the JDK. A name is split as language_COUNTRY.encoding@variant; the JDK's alias tables (locale_str.h:
 * "japanese" for ja_JP and the like) are not applied, so such a legacy alias ends up as a language of its own.
 */
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "svm_locale.h"

static svm_locale_props_t props;

static int parse(int category, char **language, char **script, char **country, char **variant) {
    const char *name = setlocale(category, NULL);
    if (name == NULL || strcmp(name, "C") == 0 || strcmp(name, "POSIX") == 0 || strncmp(name, "C.", 2) == 0) {
        name = "en_US";
    }
    char *copy = strdup(name);
    if (copy == NULL) {
        return 0;
    }
    char *at = strchr(copy, '@');
    if (at != NULL) {
        *at = '\0';
    }
    char *dot = strchr(copy, '.');
    if (dot != NULL) {
        *dot = '\0';
    }
    char *underscore = strchr(copy, '_');
    if (underscore != NULL) {
        *underscore = '\0';
    }
    *language = strdup(copy);
    *script = NULL;
    *country = underscore != NULL && underscore[1] != '\0' ? strdup(underscore + 1) : NULL;
    *variant = at != NULL && at[1] != '\0' ? strdup(at + 1) : NULL;
    int ok = *language != NULL && (underscore == NULL || underscore[1] == '\0' || *country != NULL)
            && (at == NULL || at[1] == '\0' || *variant != NULL);
    free(copy);
    return ok;
}

/* Sets the process locale from the environment (LANG, LC_*), once, early: setlocale is not thread-safe. */
int svm_initialize_locale(void) {
    setlocale(LC_ALL, "");
    if (!parse(LC_CTYPE, &props.format_language, &props.format_script, &props.format_country, &props.format_variant)
            || !parse(LC_MESSAGES, &props.display_language, &props.display_script, &props.display_country,
                      &props.display_variant)) {
        return SVM_LOCALE_INITIALIZATION_OUT_OF_MEMORY;
    }
    return SVM_LOCALE_INITIALIZATION_SUCCEEDED;
}

svm_locale_props_t *svm_get_locale(void) {
    return &props;
}

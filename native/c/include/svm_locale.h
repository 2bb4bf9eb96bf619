/*
 * The process's locale as the GraalVM builder's C interface declares it
 * (com.oracle.svm.core.c.locale.LocaleCHelper in svm-<version>-sources.jar): the JDK's display and format locale
 * parts (java_props_md.c), each a string or NULL. The builder reads this layout while it analyses any image (the
 * function that fills it at run time belongs to the part of the C layer a full local link needs, docs/native.md).
 */
#ifndef SVM_LOCALE_H
#define SVM_LOCALE_H

#define SVM_LOCALE_INITIALIZATION_SUCCEEDED 0
#define SVM_LOCALE_INITIALIZATION_OUT_OF_MEMORY 1

typedef struct {
  char *display_language;
  char *display_script;
  char *display_country;
  char *display_variant;
  char *format_language;
  char *format_script;
  char *format_country;
  char *format_variant;
} svm_locale_props_t;

int svm_initialize_locale(void);
svm_locale_props_t *svm_get_locale(void);

#endif

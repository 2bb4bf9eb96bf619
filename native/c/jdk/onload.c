/*
 * JNI_OnLoad_<lib> for the JDK libraries the image treats as statically linked ("built-in": java, nio, net, zip,
 * extnet, management_ext). The image calls JNI_OnLoad_<lib> when Java code loads such a library
 * (JNILibraryInitializer); here each library is the JDK's shared one, linked to the executable, so the forwarder
 * runs that library's own JNI_OnLoad (libnet's sets up its IPv4/IPv6 state, libjava's keeps the JavaVM pointer).
 *
 * The image requires a built-in library to ask for at least JNI 1.8 (the version static JNI libraries were
 * introduced with); the shared libraries answer 1.2, so the forwarder reports 1.8 for them. libzip.so and
 * libextnet.so have no JNI_OnLoad of their own: their forwarders only report the version.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jni.h>
#include <stdio.h>
#include <string.h>

typedef jint (*onload_fn)(JavaVM *vm, void *reserved);

/* The library's own JNI_OnLoad, or NULL: dlsym on a handle also searches its dependencies, which would be wrong. */
static onload_fn own_onload(const char *soname) {
    void *handle = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
    if (handle == NULL) {
        return NULL;
    }
    void *symbol = dlsym(handle, "JNI_OnLoad");
    Dl_info info;
    onload_fn result = NULL;
    if (symbol != NULL && dladdr(symbol, &info) != 0 && info.dli_fname != NULL) {
        const char *base = strrchr(info.dli_fname, '/');
        if (strcmp(base != NULL ? base + 1 : info.dli_fname, soname) == 0) {
            result = (onload_fn) symbol;
        }
    }
    dlclose(handle);
    return result;
}

static jint forward(const char *soname, JavaVM *vm, void *reserved) {
    onload_fn onload = own_onload(soname);
    jint version = onload != NULL ? onload(vm, reserved) : JNI_VERSION_1_8;
    if (version < 0) {
        return version; /* JNI_ERR: the library refused, the image reports it */
    }
    return version < JNI_VERSION_1_8 ? JNI_VERSION_1_8 : version;
}

#define FORWARDER(lib)                                                           \
    JNIEXPORT jint JNICALL JNI_OnLoad_##lib(JavaVM *vm, void *reserved) {         \
        return forward("lib" #lib ".so", vm, reserved);                          \
    }

FORWARDER(java)
FORWARDER(nio)
FORWARDER(net)
FORWARDER(zip)
FORWARDER(extnet)
FORWARDER(management_ext)

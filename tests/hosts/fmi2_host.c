/*
 * A minimal FMI 2.0 co-simulation host without Python: what a C or C++ tool does with an FMU.
 * Used by tests/integration/test_native_wrapper.py to check that the FMUs' binary starts Python by itself
 * (no LD_PRELOAD) and that the process exits cleanly.
 *
 *   fmi2_host BINARY RESOURCES_DIR STOP STEP OUTPUT_VR [VR=VALUE ...]
 *
 * Instantiates the FMU (logging on), sets the Real values VR=VALUE, initialises, steps from 0
 * to STOP by STEP, prints "OUTPUT_VR=<value>" (%.17g) and the status of each failed call, and
 * frees the instance. Exit status: 0 when every call returned fmi2OK, 1 otherwise.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *Component;
typedef void (*Logger)(void *, const char *, int, const char *, const char *, ...);
typedef struct {
    Logger logger;
    void *(*allocate)(size_t, size_t);
    void (*release)(void *);
    void *step_finished;
    void *environment;
} Callbacks;

static void logger(void *env, const char *instance, int status, const char *category, const char *message, ...)
{
    (void)env;
    va_list args;
    va_start(args, message);
    fprintf(stderr, "[%s] status %d %s: ", instance, status, category ? category : "");
    vfprintf(stderr, message, args);
    fputc('\n', stderr);
    va_end(args);
}

typedef Component (*Instantiate)(const char *, int, const char *, const char *, const Callbacks *, int, int);
typedef int (*SetupExperiment)(Component, int, double, double, int, double);
typedef int (*Call)(Component);
typedef int (*SetReal)(Component, const unsigned *, size_t, const double *);
typedef int (*GetReal)(Component, const unsigned *, size_t, double *);
typedef int (*DoStep)(Component, double, double, int);
typedef void (*FreeInstance)(Component);

#define LOOKUP(type, name) type name; *(void **)(&name) = dlsym(library, #name); \
    if (name == NULL) { fprintf(stderr, "no %s in %s\n", #name, argv[1]); return 1; }
#define CHECK(call) do { int s_ = (call); if (s_ != 0) { \
    fprintf(stderr, "%s returned status %d\n", #call, s_); failed = 1; goto out; } } while (0)

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: fmi2_host BINARY RESOURCES_DIR STOP STEP OUTPUT_VR [VR=VALUE ...]\n");
        return 2;
    }
    void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    LOOKUP(Instantiate, fmi2Instantiate)
    LOOKUP(SetupExperiment, fmi2SetupExperiment)
    LOOKUP(Call, fmi2EnterInitializationMode)
    LOOKUP(Call, fmi2ExitInitializationMode)
    LOOKUP(SetReal, fmi2SetReal)
    LOOKUP(GetReal, fmi2GetReal)
    LOOKUP(DoStep, fmi2DoStep)
    LOOKUP(Call, fmi2Terminate)
    LOOKUP(FreeInstance, fmi2FreeInstance)

    char uri[4200];
    snprintf(uri, sizeof uri, "file://%s", argv[2]);
    Callbacks callbacks = {logger, calloc, free, NULL, NULL};
    Component c = fmi2Instantiate("host", 1, "", uri, &callbacks, 0, 1);
    if (c == NULL) { fprintf(stderr, "fmi2Instantiate returned NULL\n"); return 1; }
    double stop = atof(argv[3]), step = atof(argv[4]);
    unsigned output = (unsigned)strtoul(argv[5], NULL, 10);
    int failed = 0;
    CHECK(fmi2SetupExperiment(c, 0, 0.0, 0.0, 1, stop));
    CHECK(fmi2EnterInitializationMode(c));
    for (int i = 6; i < argc; i++) {
        unsigned vr = (unsigned)strtoul(argv[i], NULL, 10);
        const char *equals = strchr(argv[i], '=');
        double value = equals ? atof(equals + 1) : 0.0;
        CHECK(fmi2SetReal(c, &vr, 1, &value));
    }
    CHECK(fmi2ExitInitializationMode(c));
    long steps = (long)(stop / step + 0.5);
    for (long k = 0; k < steps; k++) CHECK(fmi2DoStep(c, k * step, step, 1));
    double value;
    CHECK(fmi2GetReal(c, &output, 1, &value));
    printf("%u=%.17g\n", output, value);
    CHECK(fmi2Terminate(c));
out:
    fmi2FreeInstance(c);
    return failed;
}

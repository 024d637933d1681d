/*
 * The native wrapper's Python: the interpreter of a Python host, or one started here for a host
 * without Python (which one: FMU_PYTHON_EXECUTABLE, the one recorded at build, python3 on PATH;
 * each asked whether it has a shared libpython and the FMU's requirements), the stable-ABI
 * functions bound with dlsym, and the few Python helpers the wrapper runs (python_fmu.c's
 * header says why and in which order).
 */
#include "wrapper.h"

static const char *const METHOD_NAMES[METHOD_COUNT] = {
    [SETUP_EXPERIMENT] = "setup_experiment",
    [ENTER_INITIALIZATION_MODE] = "enter_initialization_mode",
    [EXIT_INITIALIZATION_MODE] = "exit_initialization_mode",
    [TERMINATE] = "terminate",
    [DO_STEP] = "do_step",
    [GET_REAL] = "get_real",
    [GET_INTEGER] = "get_integer",
    [GET_BOOLEAN] = "get_boolean",
    [GET_STRING] = "get_string",
    [SET_REAL] = "set_real",
    [SET_INTEGER] = "set_integer",
    [SET_BOOLEAN] = "set_boolean",
    [SET_STRING] = "set_string",
    [GET_FMU_STATE] = "_get_fmu_state",
    [SET_FMU_STATE] = "_set_fmu_state",
    [FMU_STATE_TO_BYTES] = "_fmu_state_to_bytes",
    [FMU_STATE_FROM_BYTES] = "_fmu_state_from_bytes",
    [STATUS_QUERY] = "status_query",
};

/* The one process-wide interpreter handle of this library: allocated once, never freed, so
 * no exit handler or library destructor can release it twice (see the header comment). */
PythonApi *python = NULL;
static pthread_mutex_t python_lock = PTHREAD_MUTEX_INITIALIZER;

#define Py_file_input 257

/* Python that both HELPER_SOURCE (in a Python host) and PROBE_SOURCE (in a candidate Python, a
 * host without one) run: the lines of requirements.txt this Python lacks, and the pinned ones it
 * has in another version, as (distribution, its version, the pinned one). Standard library only. */
#define REQUIREMENTS_SOURCE                                                                      \
    "def requirements_lists(path):\n"                                                           \
    "    from importlib import metadata\n"                                                      \
    "    try:\n"                                                                                \
    "        lines = open(path, encoding='utf-8').read().splitlines()\n"                        \
    "    except OSError:\n"                                                                     \
    "        return [], []\n"                                                                   \
    "    missing, other = [], []\n"                                                             \
    "    for line in lines:\n"                                                                  \
    "        line = line.split('#')[0].strip()\n"                                               \
    "        if not line:\n"                                                                    \
    "            continue\n"                                                                    \
    "        dist, _, pinned = line.partition('==')\n"                                          \
    "        try:\n"                                                                            \
    "            have = metadata.version(dist.strip())\n"                                       \
    "        except metadata.PackageNotFoundError:\n"                                           \
    "            missing.append(line)\n"                                                        \
    "            continue\n"                                                                    \
    "        if pinned and have != pinned.strip():\n"                                           \
    "            other.append((dist.strip(), have, pinned.strip()))\n"                          \
    "    return missing, other\n"

/* Python side of the wrapper: finding the slave class and reading the log queue are a few
 * lines of Python and hundreds of C. Compiled once per library and process (as the module
 * _fmu_native_wrapper_helpers; each library keeps its own functions). */
static const char HELPER_SOURCE[] =
    "import importlib, os, sys\n"
    REQUIREMENTS_SOURCE
    "CHECKED = {}\n"
    "def requirements_check(resources):\n"
    "    if resources not in CHECKED:\n"
    "        CHECKED[resources] = _requirements_check(resources)\n"
    "    return CHECKED[resources]\n"
    "def _requirements_check(resources):\n"
    "    path = os.path.join(resources, 'requirements.txt')\n"
    "    missing, other = requirements_lists(path)\n"
    "    if missing:\n"
    "        raise RuntimeError(f'the Python of this process ({sys.executable}) lacks what the FMU '\n"
    "                           f'needs: {\", \".join(missing)}. Install it with: {sys.executable} -m pip '\n"
    "                           f'install -r {path}')\n"
    "    return [f'{dist} {have} (built with {pinned})' for dist, have, pinned in other]\n"
    "def create_slave(resources, module_name, instance_name, visible):\n"
    "    other = requirements_check(resources)\n"
    "    if resources not in sys.path:\n"
    "        sys.path.insert(0, resources)\n"
    "    module = importlib.import_module(module_name)\n"
    "    from pythonfmu import Fmi2Slave\n"
    "    found = [c for c in vars(module).values() if isinstance(c, type)\n"
    "             and issubclass(c, Fmi2Slave) and c.__module__ == module.__name__]\n"
    "    if len(found) != 1:\n"
    "        raise RuntimeError(f'{module.__file__} defines {len(found)} subclasses of '\n"
    "                           f'pythonfmu.Fmi2Slave, expected one')\n"
    "    slave = found[0](instance_name=instance_name, resources=resources, visible=bool(visible),\n"
    "                     fmi2_exception_status=True)\n"
    "    if other and hasattr(slave, 'log'):\n"
    "        from pythonfmu.enums import Fmi2Status\n"
    "        slave.log('packages at other versions than the FMU was built and tested with: '\n"
    "                  + ', '.join(other), Fmi2Status.warning)\n"
    "    return slave\n"
    "EXACT_TYPES = (float, int, bool, list, dict)\n"
    "NONE = None\n"
    "def numpy_scalar_types():\n"
    "    numpy = sys.modules.get('numpy')\n"
    "    if numpy is None:\n"
    "        return None\n"
    "    integers = {numpy.dtype(code).type for code in 'bhilqpBHILQP'}\n"
    "    return (numpy.float64, numpy.bool_) + tuple(sorted(integers, key=str))\n"
    "def drain_log(slave):\n"
    "    queue = getattr(slave, 'log_queue', None)\n"
    "    if not queue:\n"
    "        return ()\n"
    "    out = tuple((int(m.status), str(m.category or ''), str(m.msg)) for m in queue)\n"
    "    del queue[:]\n"
    "    return out\n";

/* ---------------------------------------------------------------- starting or finding Python */
char *read_file_line(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) return NULL;
    char line[4096];
    char *result = NULL;
    if (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        result = strdup(line);
    }
    fclose(f);
    return result;
}

/* The value of `key=` in resources/python_environment.txt, or NULL. */
static char *environment_setting(const char *resources, const char *key)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/python_environment.txt", resources);
    FILE *f = fopen(path, "r");
    if (f == NULL) return NULL;
    char line[4096];
    char *result = NULL;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, key, n) == 0 && line[n] == '=' && line[n + 1] != '\0') {
            result = strdup(line + n + 1);
            break;
        }
    }
    fclose(f);
    return result;
}

/* ---------------------------------------------------------------- choosing a Python (a host without one) */
/* The script a candidate interpreter runs (`python -I -c PROBE requirements.txt`): it prints
 * where its shared libpython is (sysconfig, as the candidate itself knows it) and which of the
 * FMU's requirements it lacks. Standard library only. */
static const char PROBE_SOURCE[] =
    "import os, sys, sysconfig\n"
    REQUIREMENTS_SOURCE
    "v = sysconfig.get_config_var\n"
    "name = v('INSTSONAME') or ''\n"
    "folders = [v('LIBDIR') or '', os.path.join(v('LIBDIR') or '', v('MULTIARCH') or ''),\n"
    "           os.path.join(sys.base_prefix, 'lib')]\n"
    "found = [os.path.join(f, name) for f in folders if name and os.path.isfile(os.path.join(f, name))]\n"
    "print('library=' + (found[0] if found else ('' if not v('Py_ENABLE_SHARED') else name)))\n"
    "missing, other = requirements_lists(sys.argv[1])\n"
    "print('missing=' + ' '.join(missing))\n"
    "print('other=' + ', '.join(f'{dist} {have}' for dist, have, _ in other))\n";

/* What a probe of one candidate found. */
typedef struct {
    char library[1024];   /* its shared libpython ("" : none) */
    char missing[1024];   /* the requirements it lacks, space-separated */
    char other[1024];     /* installed at another version than the FMU was built with */
} Probe;

static void copy_value(char *target, size_t size, const char *line, const char *key)
{
    size_t n = strlen(key);
    if (strncmp(line, key, n) != 0) return;
    size_t length = strlen(line + n);
    if (length >= size) length = size - 1;   /* a longer answer is cut */
    memcpy(target, line + n, length);
    target[length] = '\0';
}

/* Run `executable PROBE resources/requirements.txt` (the environment as it is: PYTHONPATH and
 * PYTHONHOME apply to the probe as to the interpreter started later). 1 when it ran and
 * answered; else 0 with the reason in `why`. */
static int probe_candidate(const char *executable, const char *resources, Probe *probe, char *why, size_t size)
{
    memset(probe, 0, sizeof *probe);
    char requirements[4096];
    snprintf(requirements, sizeof requirements, "%s/requirements.txt", resources);
    int pipe_ends[2];
    if (pipe(pipe_ends) != 0) { snprintf(why, size, "cannot make a pipe"); return 0; }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], 1);
    posix_spawn_file_actions_addclose(&actions, pipe_ends[0]);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {(char *)executable, "-c", (char *)PROBE_SOURCE, requirements, NULL};
    pid_t pid;
    int spawned = posix_spawnp(&pid, executable, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_ends[1]);
    if (spawned != 0) {
        close(pipe_ends[0]);
        snprintf(why, size, "cannot run it (%s)", strerror(spawned));
        return 0;
    }
    FILE *out = fdopen(pipe_ends[0], "r");
    char line[2048];
    int answered = 0;
    while (out && fgets(line, sizeof line, out)) {
        line[strcspn(line, "\r\n")] = '\0';
        copy_value(probe->library, sizeof probe->library, line, "library=");
        copy_value(probe->missing, sizeof probe->missing, line, "missing=");
        copy_value(probe->other, sizeof probe->other, line, "other=");
        if (strncmp(line, "other=", 6) == 0) answered = 1;
    }
    if (out) fclose(out); else close(pipe_ends[0]);
    int code = 0;
    while (waitpid(pid, &code, 0) < 0 && errno == EINTR) {}
    if (!answered || !WIFEXITED(code) || WEXITSTATUS(code) != 0) {
        snprintf(why, size, "it did not answer as a CPython 3 interpreter");
        return 0;
    }
    return 1;
}


static void append(char *text, size_t size, const char *format, ...)
{
    size_t used = strlen(text);
    if (used + 1 >= size) return;
    va_list args;
    va_start(args, format);
    vsnprintf(text + used, size - used, format, args);
    va_end(args);
}

/* The libpython (dlopen'ed, RTLD_GLOBAL) of the first candidate that fits, its executable in
 * *chosen (to free); NULL with the whole story in `error` when none does. `note` says which
 * candidates were passed over and which packages differ from the build's versions. */
static void *choose_python(const char *resources, char **chosen, char *error, size_t size,
                           char *note, size_t note_size)
{
    const char *user = getenv("FMU_PYTHON_EXECUTABLE");
    const char *library = getenv("FMU_PYTHON_LIBRARY");
    char *recorded = environment_setting(resources, "executable");
    const char *candidates[3] = {user && *user ? user : NULL, recorded, "python3"};
    const char *labels[3] = {"FMU_PYTHON_EXECUTABLE=", "the interpreter recorded at build, ",
                             "python3 on PATH"};
    char story[3072] = "", fixable[1024] = "";
    void *handle = NULL;
    note[0] = '\0';
    for (int i = 0; i < 3 && handle == NULL; i++) {
        const char *candidate = candidates[i];
        if (candidate == NULL) continue;
        const char *shown = i == 2 ? "" : candidate;
        if (i == 1 && access(candidate, X_OK) != 0) {
            append(story, sizeof story, "%s%s%s: no longer exists", story[0] ? "; " : "", labels[i], shown);
            continue;
        }
        Probe probe;
        char why[512];
        if (!probe_candidate(candidate, resources, &probe, why, sizeof why)) {
            append(story, sizeof story, "%s%s%s: %s", story[0] ? "; " : "", labels[i], shown, why);
            continue;
        }
        if (probe.missing[0]) {
            append(story, sizeof story, "%s%s%s: lacks %s", story[0] ? "; " : "", labels[i], shown, probe.missing);
            if (!fixable[0]) snprintf(fixable, sizeof fixable, "%s", candidate);
            continue;
        }
        const char *shared = library && *library ? library : probe.library;
        if (!shared[0]) {
            append(story, sizeof story, "%s%s%s: has no shared libpython (a Python built without "
                   "--enable-shared cannot be embedded)", story[0] ? "; " : "", labels[i], shown);
            continue;
        }
        handle = dlopen(shared, RTLD_NOW | RTLD_GLOBAL);
        if (handle == NULL) {
            append(story, sizeof story, "%s%s%s: cannot load %s (%s)", story[0] ? "; " : "", labels[i],
                   shown, shared, dlerror());
            continue;
        }
        *chosen = strdup(candidate);
        if (story[0]) append(note, note_size, "Python: %s%s chosen, after: %s. ", labels[i], shown, story);
        if (probe.other[0]) append(note, note_size, "Packages at other versions than the FMU was "
                                   "built and tested with: %s.", probe.other);
    }
    if (handle == NULL) {
        snprintf(error, size, "no Python fits this FMU (a host without Python: tried in order "
                 "FMU_PYTHON_EXECUTABLE, the interpreter recorded at build, python3 on PATH): %s. "
                 "Install what it needs with: %s -m pip install -r %s/requirements.txt%s",
                 story[0] ? story : "no candidate", fixable[0] ? fixable : "python3", resources,
                 fixable[0] ? "" : " (or set FMU_PYTHON_EXECUTABLE to a Python 3 that has it)");
    }
    free(recorded);
    return handle;
}

/* Look up every function in `handle` (RTLD_DEFAULT: the process). 0 if one is missing. */
static int bind_api(PythonApi *api, void *handle, char *missing, size_t size)
{
#define BIND(ret, name, args)                                                                   \
    *(void **)(&api->name) = dlsym(handle, #name);                                              \
    if (api->name == NULL) { snprintf(missing, size, "%s", #name); return 0; }
    PYTHON_FUNCTIONS(BIND)
#undef BIND
    *(void **)(&api->Py_SetProgramName) = dlsym(handle, "Py_SetProgramName");
    *(void **)(&api->PyObject_GetBuffer) = dlsym(handle, "PyObject_GetBuffer");
    *(void **)(&api->PyBuffer_Release) = dlsym(handle, "PyBuffer_Release");
    if (api->PyObject_GetBuffer == NULL || api->PyBuffer_Release == NULL)
        api->PyObject_GetBuffer = NULL, api->PyBuffer_Release = NULL;
    return 1;
}

/* The types float, int, bool, list and dict, and None, kept for good (GIL held). 1 on success. */
static int load_exact_types(PythonApi *api, PyObject *module)
{
    api->none_object = api->PyObject_GetAttrString(module, "NONE");
    PyObject *types = api->PyObject_GetAttrString(module, "EXACT_TYPES");
    if (types == NULL || api->none_object == NULL) return 0;
    void **slots[] = {&api->float_type, &api->int_type, &api->bool_type, &api->list_type, &api->dict_type};
    int ok = 1;
    for (Py_ssize_t i = 0; i < 5 && ok; i++) {
        PyObject *type = api->PySequence_GetItem(types, i);   /* the reference is kept */
        ok = type != NULL;
        if (ok) *slots[i] = type;
    }
    api->Py_DecRef(types);
    return ok;
}

/* Compile HELPER_SOURCE (GIL held). */
static int load_helpers(PythonApi *api, char *error, size_t size)
{
    PyObject *code = api->Py_CompileString(HELPER_SOURCE, "<fmu native wrapper>", Py_file_input);
    PyObject *module = code ? api->PyImport_ExecCodeModule("_fmu_native_wrapper_helpers", code) : NULL;
    if (code) api->Py_DecRef(code);
    int typed = 0;
    if (module != NULL) {
        api->create_slave = api->PyObject_GetAttrString(module, "create_slave");
        api->drain_log = api->PyObject_GetAttrString(module, "drain_log");
        api->numpy_scalar_types = api->PyObject_GetAttrString(module, "numpy_scalar_types");
        typed = load_exact_types(api, module);
        api->Py_DecRef(module);
    }
    int named = (api->log_queue_name = api->PyUnicode_InternFromString("log_queue")) != NULL;
    for (int m = 0; m < METHOD_COUNT && named; m++)
        named = (api->method_names[m] = api->PyUnicode_InternFromString(METHOD_NAMES[m])) != NULL;
    named = named && (api->epoch_name = api->PyUnicode_InternFromString("_native_epoch")) != NULL
            && (api->plan_name = api->PyUnicode_InternFromString("_native_plan")) != NULL
            && (api->values_changed_name = api->PyUnicode_InternFromString("values_changed")) != NULL
            && (api->true_object = api->PyBool_FromLong(1)) != NULL;
    if (api->create_slave == NULL || api->drain_log == NULL || api->numpy_scalar_types == NULL || !named || !typed) {
        snprintf(error, size, "cannot compile the wrapper's Python helpers");
        api->PyErr_Clear();
        return 0;
    }
    return 1;
}

/* Make `python` usable: the process's interpreter, else one started here. 1 on success. */
int ensure_python(const char *resources, char *error, size_t size, char *note, size_t note_size)
{
    pthread_mutex_lock(&python_lock);
    if (python != NULL) { pthread_mutex_unlock(&python_lock); return 1; }
    PythonApi *api = calloc(1, sizeof *api);
    char missing[128] = "";
    char *chosen = NULL;
    void *handle = NULL;
    int ok = 0;
    if (api == NULL) { snprintf(error, size, "out of memory"); goto done; }

    if (!bind_api(api, RTLD_DEFAULT, missing, sizeof missing)) {
        /* No Python in the process: choose an interpreter and load its libpython globally
         * (its extension modules need its symbols). */
        handle = choose_python(resources, &chosen, error, size, note, note_size);
        if (handle == NULL) goto done;
        memset(api, 0, sizeof *api);
        if (!bind_api(api, handle, missing, sizeof missing)) {
            snprintf(error, size, "the libpython of %s lacks %s", chosen, missing);
            goto done;
        }
    }

    if (!api->Py_IsInitialized()) {
        char *executable = chosen;
        chosen = NULL;
        if (executable != NULL && api->Py_SetProgramName != NULL) {
            /* Python keeps the pointer: the copy is never freed. */
            size_t n = mbstowcs(NULL, executable, 0);
            wchar_t *wide = (n != (size_t)-1) ? calloc(n + 1, sizeof *wide) : NULL;
            if (wide != NULL) {
                mbstowcs(wide, executable, n + 1);
                api->Py_SetProgramName(wide);
            }
        }
        free(executable);
        api->Py_InitializeEx(0);  /* 0: the host keeps its own signal handlers */
        if (!api->Py_IsInitialized()) {
            snprintf(error, size, "Python failed to start");
            goto done;
        }
        /* Started here: this thread holds the GIL. Release it for good (every call takes it
         * with PyGILState_Ensure, from whichever thread the host uses); the thread state
         * stays alive, as does the interpreter, until the process ends. */
        api->PyEval_SaveThread();
    }

    PyGILState_STATE gil = api->PyGILState_Ensure();
    ok = load_helpers(api, error, size);
    api->PyGILState_Release(gil);

done:
    free(chosen);
    if (ok) python = api;
    else free(api);
    pthread_mutex_unlock(&python_lock);
    return ok;
}


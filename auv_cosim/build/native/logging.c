/*
 * The native wrapper's logging: what the slave queued (Fmi2Slave.log) and the text of a Python
 * exception, to the host's logger, with the categories fmi2SetDebugLogging enabled.
 */
#include "wrapper.h"

/* ---------------------------------------------------------------- logging */
static int category_enabled(const Instance *inst, const char *category)
{
    if (!inst->logging_on) return 0;
    if (inst->categories == NULL) return 1;
    for (size_t i = 0; i < inst->n_categories; i++)
        if (category && strcmp(inst->categories[i], category) == 0) return 1;
    return 0;
}

/* Pass `message` to the host's logger as a format with every '%' doubled. */
static void emit(const Instance *inst, fmi2Status status, const char *category, const char *message)
{
    if (inst->callbacks.logger == NULL) return;
    if (status < fmi2Warning && !category_enabled(inst, category)) return;
    size_t n = 0;
    for (const char *p = message; *p; p++) n += (*p == '%') ? 2 : 1;
    char *escaped = malloc(n + 1);
    if (escaped == NULL) return;
    char *q = escaped;
    for (const char *p = message; *p; p++) {
        *q++ = *p;
        if (*p == '%') *q++ = '%';
    }
    *q = '\0';
    inst->callbacks.logger(inst->callbacks.componentEnvironment, inst->instance_name, status,
                           category ? category : "logAll", escaped);
    free(escaped);
}

void emitf(const Instance *inst, fmi2Status status, const char *category, const char *format, ...)
{
    char buffer[2048];
    va_list args;
    va_start(args, format);
    vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    emit(inst, status, category, buffer);
}

void log_error(const Instance *inst, const char *format, ...)
{
    char buffer[2048];
    va_list args;
    va_start(args, format);
    vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    emit(inst, fmi2Error, "logStatusError", buffer);
}

/* The UTF-8 text of a Python object (str() of it) into buffer; "" on any failure. */
static void text_of(PyObject *object, char *buffer, size_t size)
{
    buffer[0] = '\0';
    if (object == NULL) return;
    PyObject *text = python->PyObject_Str(object);
    if (text == NULL) { python->PyErr_Clear(); return; }
    PyObject *bytes = python->PyUnicode_AsUTF8String(text);
    python->Py_DecRef(text);
    if (bytes == NULL) { python->PyErr_Clear(); return; }
    const char *s = python->PyBytes_AsString(bytes);
    if (s) snprintf(buffer, size, "%s", s);
    python->Py_DecRef(bytes);
}

/* Forward what the slave queued since the last call (GIL held). The queue is almost always
 * empty: that is found here, without calling the Python helper (which reads a non-empty queue,
 * or anything that is not a plain list, exactly as before: `if not queue: nothing`). */
void drain_log(const Instance *inst)
{
    if (inst->slave == NULL) return;
    PyObject *queue = python->PyObject_GetAttr(inst->slave, python->log_queue_name);
    if (queue == NULL) { python->PyErr_Clear(); return; }   /* no queue: nothing to forward */
    int pending = python->PyObject_IsTrue(queue);
    python->Py_DecRef(queue);
    if (pending == 0) return;
    python->PyErr_Clear();   /* pending < 0: the helper meets the same failure and says nothing */
    PyObject *args = python->PyTuple_New(1);
    python->Py_IncRef(inst->slave);
    python->PyTuple_SetItem(args, 0, inst->slave);
    PyObject *messages = python->PyObject_CallObject(python->drain_log, args);
    python->Py_DecRef(args);
    if (messages == NULL) { python->PyErr_Clear(); return; }
    Py_ssize_t n = python->PySequence_Size(messages);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *m = python->PySequence_GetItem(messages, i);
        PyObject *status = python->PySequence_GetItem(m, 0);
        PyObject *category = python->PySequence_GetItem(m, 1);
        PyObject *text = python->PySequence_GetItem(m, 2);
        char category_text[128], message[8192];
        text_of(category, category_text, sizeof category_text);
        text_of(text, message, sizeof message);
        long s = python->PyLong_AsLong(status);
        if (s < fmi2OK || s > fmi2Fatal) s = fmi2OK;
        emit(inst, (fmi2Status)s, category_text[0] ? category_text : NULL, message);
        python->Py_DecRef(status);
        python->Py_DecRef(category);
        python->Py_DecRef(text);
        python->Py_DecRef(m);
    }
    python->Py_DecRef(messages);
    python->PyErr_Clear();
}

/* The status of the Python exception that is set (GIL held): its integer `fmi2_status`
 * attribute if it has one in fmi2Warning..fmi2Fatal (then its text is the whole message),
 * else fmi2Error with "Type: text". Logs the message and clears the exception. */
fmi2Status report_exception(const Instance *inst, const char *function)
{
    PyObject *type = NULL, *value = NULL, *traceback = NULL;
    python->PyErr_Fetch(&type, &value, &traceback);
    python->PyErr_NormalizeException(&type, &value, &traceback);
    fmi2Status status = fmi2Error;
    int chosen = 0;
    if (value != NULL) {
        PyObject *attribute = python->PyObject_GetAttrString(value, "fmi2_status");
        if (attribute != NULL) {
            long s = python->PyLong_AsLong(attribute);
            if (s >= fmi2Warning && s <= fmi2Fatal) { status = (fmi2Status)s; chosen = 1; }
            python->Py_DecRef(attribute);
        }
        python->PyErr_Clear();
    }
    char type_name[128] = "", text[8192] = "";
    if (type != NULL) {
        PyObject *name = python->PyObject_GetAttrString(type, "__name__");
        text_of(name, type_name, sizeof type_name);
        if (name) python->Py_DecRef(name);
        python->PyErr_Clear();
    }
    text_of(value, text, sizeof text);
    drain_log(inst);  /* what the slave logged before raising comes first */
    static const char *categories[] = {"logAll", "logStatusWarning", "logStatusDiscard",
                                       "logStatusError", "logStatusFatal"};
    if (chosen)
        emitf(inst, status, categories[status], "%s", text[0] ? text : function);
    else
        emitf(inst, status, categories[status], "%s: %s%s%s", function, type_name,
              text[0] ? ": " : "", text);
    if (type) python->Py_DecRef(type);
    if (value) python->Py_DecRef(value);
    if (traceback) python->Py_DecRef(traceback);
    python->PyErr_Clear();
    return status;
}


/* A name given by a user that becomes one path component (name.h). */
#include "name.h"
#include "util.h"

#include <string.h>

const char *name_component_problem(const char *name)
{
    static const char *const devices[] = {"CON", "PRN", "AUX", "NUL"};
    size_t n = strlen(name);
    if (!n)
        return "it is empty";
    if (!strcmp(name, ".") || !strcmp(name, ".."))
        return "'.' and '..' name folders, not a file of their own";
    if (strpbrk(name, "/\\"))
        return "it holds a path separator";
    if (n > 255)
        return "it is longer than 255 bytes";
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7f || strchr("<>:\"|?*", *p))
            return "it holds a character Windows refuses in a file name (<>:\"|?* or a "
                   "control character), and a store may be shared with Windows";
    if (name[n - 1] == '.' || name[n - 1] == ' ')
        return "it ends with a dot or a space, which Windows drops";
    /* Windows' device names, with or without an extension: "NUL.txt" is the device too. */
    size_t base = strcspn(name, ".");
    while (base && name[base - 1] == ' ')
        base--;
    bool device = false;
    for (size_t i = 0; i < CDM_ARRAY_LEN(devices); i++)
        device |= base == 3 && str_starts_with_icase(name, devices[i]);
    if (base == 4 && (str_starts_with_icase(name, "COM") || str_starts_with_icase(name, "LPT")) &&
        name[3] >= '1' && name[3] <= '9')
        device = true;
    return device ? "it is a device name on Windows (CON, PRN, AUX, NUL, COM1-9, LPT1-9)" : NULL;
}

/*
 * A user's places and environment on Windows (userenv.h). New sessions take the user's
 * variables from HKCU\Environment, which Explorer rereads on WM_SETTINGCHANGE; the values
 * are written with the registry calls, never through setx, which cuts them at 1024
 * characters.
 */
#include "platform/userenv.h"
#include "platform/win32_util.h"
#include "base/error.h"
#include "base/util.h"

#include <stdlib.h>

bool userenv_uses_registry(void)
{
    return true;
}

char *userenv_envd_dir(void)
{
    return NULL;
}

char *userenv_profile(void)
{
    return NULL;
}

static int open_env(cdm_ctx *ctx, REGSAM access, HKEY *key)
{
    LSTATUS e = RegOpenKeyExW(HKEY_CURRENT_USER, L"Environment", 0, access, key);
    if (e == ERROR_SUCCESS)
        return CDM_OK;
    return win_error(ctx, CDM_EIO, (DWORD)e, "cannot open '%s'", "HKCU\\Environment");
}

int userenv_reg_get(cdm_ctx *ctx, const char *name, char **value, bool *expand)
{
    *value = NULL;
    *expand = false;
    HKEY key;
    int rc = open_env(ctx, KEY_QUERY_VALUE, &key);
    if (rc)
        return rc;
    wchar_t *wname = win_wide(name);
    wchar_t *buf = NULL;
    DWORD type = 0, size = 0;
    LSTATUS e = RegQueryValueExW(key, wname, NULL, &type, NULL, &size);
    if (e == ERROR_FILE_NOT_FOUND)
        goto out;
    if (e == ERROR_SUCCESS && type != REG_SZ && type != REG_EXPAND_SZ) {
        rc = cdm_error_set(ctx, CDM_EUNSUPPORTED,
                           "cannot use 'HKCU\\Environment\\%s': it is not a text value; fix it "
                           "with regedit",
                           name);
        goto out;
    }
    if (e == ERROR_SUCCESS) {
        buf = xcalloc(size / sizeof(wchar_t) + 2, sizeof(wchar_t));
        e = RegQueryValueExW(key, wname, NULL, &type, (BYTE *)buf, &size);
    }
    if (e != ERROR_SUCCESS) {
        rc = win_error(ctx, CDM_EIO, (DWORD)e, "cannot read 'HKCU\\Environment\\%s'", name);
        goto out;
    }
    *value = win_narrow(buf);
    *expand = type == REG_EXPAND_SZ;
out:
    free(buf);
    free(wname);
    RegCloseKey(key);
    return rc;
}

int userenv_reg_set(cdm_ctx *ctx, const char *name, const char *value, bool expand)
{
    HKEY key;
    int rc = open_env(ctx, KEY_SET_VALUE, &key);
    if (rc)
        return rc;
    wchar_t *wname = win_wide(name);
    wchar_t *wvalue = value ? win_wide(value) : NULL;
    LSTATUS e;
    if (wvalue)
        e = RegSetValueExW(key, wname, 0, expand ? REG_EXPAND_SZ : REG_SZ, (const BYTE *)wvalue,
                           (DWORD)((wcslen(wvalue) + 1) * sizeof(wchar_t)));
    else if ((e = RegDeleteValueW(key, wname)) == ERROR_FILE_NOT_FOUND)
        e = ERROR_SUCCESS;
    if (e != ERROR_SUCCESS)
        rc = win_error(ctx, CDM_EIO, (DWORD)e, "cannot write 'HKCU\\Environment\\%s'", name);
    free(wvalue);
    free(wname);
    RegCloseKey(key);
    return rc;
}

void userenv_broadcast(void)
{
    DWORD_PTR result;
    SendMessageTimeoutW(HWND_BROADCAST, WM_SETTINGCHANGE, 0, (LPARAM)L"Environment",
                        SMTO_ABORTIFHUNG, 5000, &result);
}

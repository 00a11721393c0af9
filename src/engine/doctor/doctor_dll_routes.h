/* The doctor's Windows Python layer (doctor_dll_routes.c). */
#ifndef CDM_DOCTOR_DLL_ROUTES_H
#define CDM_DOCTOR_DLL_ROUTES_H

struct doctor;

/* One check, <check>.dlls, for the environment at prefix whose site-packages is site:
 * which cudnn64_<major>.dll each of its frameworks will load, and why. wheel_dir: the
 * nvidia-cudnn wheel's bin folder (NULL: none). Nothing when it has no such framework. */
void doctor_dll_routes(struct doctor *d, const char *check, const char *prefix, const char *site,
                       const char *wheel_dir);

#endif

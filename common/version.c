/*
 * version.c - owns the release string (version.h)
 */
#include "version.h"

#ifndef DEHBQ_VERSION
#define DEHBQ_VERSION "unknown"
#endif

const char dehbq_version[] = DEHBQ_VERSION;

/*
 * version.h - the release every program reports with --version
 *
 * The text comes from the VERSION file at the top of the source tree
 * (the Makefile passes it in).  Ownership: a static string.
 */
#ifndef DEHBQ_VERSION_H
#define DEHBQ_VERSION_H

extern const char dehbq_version[];

#endif

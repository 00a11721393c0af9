/*
 * NVIDIA's cuDNN wheels from a Python package index that speaks the simple API: PyPI, a
 * devpi or Artifactory mirror. A project's page (<index>/nvidia-cudnn-cu12/) is asked for
 * as JSON (PEP 691, with PEP 700's sizes) and read as HTML (PEP 503) when the index
 * answers so; its files are chosen by name (wheel_name_parse: version, CUDA major,
 * platform tag), and each must come with the index's sha256, which the download is
 * checked against before RECORD is.
 */
#ifndef CDM_PYPI_H
#define CDM_PYPI_H

#include "manifest.h"
#include "net.h"

#define PYPI_SIMPLE "https://pypi.org/simple/"

/* The index: [fetch] index_url, else PIP_INDEX_URL (as pip reads it), else PyPI's simple
 * API; ending in '/'. NULL with CDM_ENOTFOUND set when it is "off". malloc'd. */
char *pypi_index_url(cdm_ctx *ctx);

/* One file a project's page offers. */
struct index_file {
    char name[256];  /* the file name, the URL's last part */
    char *url;       /* absolute */
    char sha256[65]; /* lowercase hex; "" when the index gave none */
    uint64_t size;   /* 0 when the index does not say */
    bool yanked;     /* PEP 592: offered, but not to be picked */
};

/* A project's page read (JSON or HTML), its links resolved against page_url. Pure: the
 * text is the page's body. *files malloc'd (index_files_free). */
int pypi_parse_page(cdm_ctx *ctx, const char *page_url, const char *text, size_t len,
                    struct index_file **files, size_t *count);
void index_files_free(struct index_file *files, size_t count);

/* Every file of the project pages nvidia-cudnn-cu13, -cu12, -cu11 (or -cu<cuda> alone when
 * cuda is given), the pages the index does not have skipped. *files malloc'd
 * (index_files_free). */
int pypi_list(cdm_ctx *ctx, struct net *net, const char *index, int cuda, struct index_file **files,
              size_t *count);

/* What install downloads: the wheel of the newest version matching spec_text for platform
 * (cuda: 0 for any; two CUDA majors then CDM_EAMBIGUOUS), as a manifest entry (name,
 * version, cuda, sha256, size) with its URL and the page it was found on. */
struct index_pick {
    struct manifest_entry entry;
    char *url;
    char *page;
};
int pypi_find(cdm_ctx *ctx, struct net *net, const char *index, const char *spec_text, int cuda,
              const char *platform, struct index_pick *out);
void index_pick_free(struct index_pick *p);

#endif

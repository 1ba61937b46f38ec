/* Versions: comparison, advice conditions, banner extraction. */
#include <string.h>

#include "test_util.h"
#include "logdx/logdx.h"
#include "../../src/core/version.h"

static void test_compare(void **state)
{
    (void)state;
    assert_true(ldxi_version_cmp("0.12.6", "0.13.0") < 0);
    assert_true(ldxi_version_cmp("0.13", "0.13.0") == 0);
    assert_true(ldxi_version_cmp("2.1.2+cu121", "2.1.2") == 0);
    assert_true(ldxi_version_cmp("2.10.0", "2.9.1") > 0);
    assert_true(ldxi_version_cmp("12.1", "11.8") > 0);
}

static void test_when(void **state)
{
    (void)state;
    ldxi_when w;
    char err[200];
    assert_true(ldxi_when_parse("deepspeed < 0.13.0", &w, err, sizeof err));
    assert_true(ldxi_when_holds(&w, "0.12.6"));
    assert_false(ldxi_when_holds(&w, "0.13.1"));
    assert_false(ldxi_when_holds(&w, NULL));
    assert_true(ldxi_when_parse("nccl", &w, err, sizeof err));
    assert_true(ldxi_when_holds(&w, "2.18.1"));
    assert_true(ldxi_when_parse("torch>=2.2", &w, err, sizeof err));
    assert_true(ldxi_when_holds(&w, "2.11.0"));
    assert_false(ldxi_when_parse("tensorflow < 2", &w, err, sizeof err));
    assert_non_null(strstr(err, "unknown component"));
    assert_false(ldxi_when_parse("torch ~ 2", &w, err, sizeof err));
    assert_false(ldxi_when_parse("torch < two", &w, err, sizeof err));
}

static const char *version_of(const char *log, const char *component)
{
    static char out[64];
    ldx_msgs *m;
    ldx_msgs_create(&m);
    ldx_compiler *c;
    ldx_compiler_create(&c, m);
    ldx_ruleset *rs;
    ldx_compiler_finish(c, &rs);
    ldx_compiler_destroy(c);
    ldx_scanner *s;
    ldx_scanner_create(&s, rs);
    ldx_reader *r;
    ldx_reader_open_mem(&r, log, strlen(log), "v");
    ldx_line l;
    while (ldx_reader_next(r, &l) == LDX_OK) ldx_scanner_line(s, &l);
    ldx_scanner_flush(s);
    const char *v = ldx_scanner_version(s, component);
    snprintf(out, sizeof out, "%s", v ? v : "");
    ldx_reader_destroy(r);
    ldx_scanner_destroy(s);
    ldx_ruleset_destroy(rs);
    ldx_msgs_destroy(m);
    return out;
}

static void test_banners(void **state)
{
    (void)state;
    assert_string_equal(version_of("[Rank 0] DeepSpeed info: version=0.12.6, git-hash=unknown\n", "deepspeed"), "0.12.6");
    assert_string_equal(version_of("PyTorch version: 2.1.2+cu121\n", "torch"), "2.1.2");
    assert_string_equal(version_of("torch==2.3.1\n", "torch"), "2.3.1");
    assert_string_equal(version_of("- `transformers` version: 4.36.2\n", "transformers"), "4.36.2");
    assert_string_equal(version_of("NCCL INFO NCCL version 2.18.1+cuda12.1\n", "nccl"), "2.18.1");
    assert_string_equal(version_of("| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n", "driver"), "535.104.05");
    assert_string_equal(version_of("| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n", "cuda"), "12.2");
    assert_string_equal(version_of("INFO 05-01 llm_engine.py:98] Initializing an LLM engine (v0.4.2) with config\n", "vllm"), "0.4.2");
    /* the first banner wins; sizes and durations are not versions */
    assert_string_equal(version_of("torch==2.1.0\ntorch==2.4.0\n", "torch"), "2.1.0");
    assert_string_equal(version_of("torch 1.5 GiB allocated\n", "torch"), "");
    assert_string_equal(version_of("using torch/distributed/run.py\n", "torch"), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_when),
        cmocka_unit_test(test_banners),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

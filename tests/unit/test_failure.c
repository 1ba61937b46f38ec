/* A failed run no rule names: the failure reader (tracebacks, terminate, faulthandler)
 * and the unclassified_failure diagnosis built from it, with both engines. */
#include "test_util.h"

#define RULE(id, klass, sev, signals, extra)                                                   \
    "id: " id "\ntitle: " id "\nclass: " klass "\nseverity: " sev "\nsignals:\n" signals extra \
    "summary: s\nsymptoms: [{symptom: a, why: b}]\nroot_cause: r\nfix: [f]\nverify: [v]\n"     \
    "references: ['https://example.org']\nexamples: {match: [x], no_match: [y]}\n"

static const char *const texts[] = {
    RULE("t-unc", "unclassified_failure", "medium",
         "  traceback: {pattern: 'Traceback \\(most recent call last\\):', weight: 2}\n"
         "  frame: {pattern: 'File \"[^\"]{1,400}\", line \\d+, in ', weight: 1}\n"
         "  terminate: {pattern: 'terminate called after throwing an instance of', weight: 2}\n"
         "  fatal_python: {pattern: 'Fatal Python error: ', weight: 2}\n"
         "  exit_status: {pattern: 'exit code (?<code>-?\\d+)', where: 'code != 0'}\n"
         "  exception_line: {pattern: '^(?:\\([^()]{0,80}pid=\\d+[^()]{0,60}\\) |[\\w.-]{1,64} +\\| |"
         "[A-Z][a-z]{2} +\\d{1,2} \\d\\d:\\d\\d:\\d\\d \\S+ [^\\s:]+: )?(?:[a-z_]\\w*\\.)*[A-Z]\\w*(?:Error|Exception): \\S'}\n",
         "  heading: {pattern: '^E[A-Z0-9]9999: Inner Error!', weight: 1, below: 6}\n"
         ""),
    RULE("t-oom", "cuda_oom", "high", "  oom: {pattern: 'CUDA out of memory', weight: 3}\n", ""),
    RULE("t-tok", "tokenizer_sequence_too_long", "low",
         "  tok: {pattern: 'Token indices sequence length is longer'}\n", ""),
    RULE("t-child", "launcher_child_failed", "medium",
         "  child: {pattern: 'ChildFailedError'}\n", "caused_by: [unclassified_failure]\n"),
    RULE("t-lib", "unclassified_failure", "high",
         "  lib: {pattern: 'LibError: could not load \\w+', weight: 3}\n", ""),
    RULE("t-coll", "collective_timeout", "medium",
         "  hccl: {pattern: 'task timeout occurred during task execution'}\n",
         "caused_by: [unclassified_failure]\n"),
};
static const char *const names[] = {"u.yaml", "o.yaml", "t.yaml", "c.yaml", "l.yaml", "h.yaml"};

static ldx_ruleset *ruleset(const char *engine)
{
    ldx_ruleset *rs = compile_rule_texts(names, texts, NULL, 6, engine, false, NULL, 0);
    assert_non_null(rs);
    return rs;
}

static const char *const engines[] = {NULL, "pcre2"};

static const ldx_diagnosis *find(const ldx_file_report *fr, const char *klass, size_t *at)
{
    for (size_t i = 0; i < fr->n; i++)
        if (!strcmp(fr->diagnoses[i].rule->klass, klass)) {
            if (at) *at = i;
            return &fr->diagnoses[i];
        }
    return NULL;
}

static const char *cap(const ldx_diagnosis *d, const char *signal, const char *name)
{
    for (size_t i = 0; i < d->nevidence; i++) {
        if (strcmp(d->evidence[i].signal, signal)) continue;
        for (size_t c = 0; c < d->evidence[i].ncaps; c++)
            if (!strcmp(d->evidence[i].caps[c].name, name)) return d->evidence[i].caps[c].value;
    }
    return NULL;
}

/* Analyzes log and checks it gets n diagnoses. */
static void expect_findings(const ldx_ruleset *rs, const char *log, size_t n)
{
    ldx_file_report *fr = analyze_text(rs, log);
    assert_int_equal(fr->n, n);
    ldx_file_report_destroy(fr);
}

/* Analyzes the log fmt with fill in place of its one %s, and checks it gets n diagnoses. */
static void expect_filled(const ldx_ruleset *rs, const char *fmt, const char *fill, size_t n)
{
    char log[2048];
    assert_true((size_t)snprintf(log, sizeof log, fmt, fill) < sizeof log);
    expect_findings(rs, log, n);
}

/* The exception line, its type, and the innermost frame outside libraries. */

static void test_exception_and_frame(void **state)
{
    (void)state;
    for (size_t e = 0; e < 2; e++) {
        ldx_ruleset *rs = ruleset(engines[e]);
        ldx_file_report *fr = analyze_text(rs,
            "step 1 loss 2.3\n"
            "Traceback (most recent call last):\n"
            "  File \"/home/u/train.py\", line 88, in <module>\n"
            "    main()\n"
            "  File \"/home/u/data.py\", line 17, in collate\n"
            "    ids = [x[\"input_ids\"] for x in items]\n"
            "  File \"/usr/lib/python3.10/site-packages/foo/bar.py\", line 3, in baz\n"
            "    raise KeyError(k)\n"
            "           ^^^^^^^^^\n"
            "KeyError: 'input_ids'\n");
        const ldx_diagnosis *d = find(fr, "unclassified_failure", NULL);
        assert_non_null(d);
        assert_int_equal(fr->n, 1);
        assert_int_equal(d->line, 10);
        assert_int_equal(d->role, LDX_ROLE_INITIATING);
        assert_string_equal(cap(d, "exception", "type"), "KeyError");
        assert_string_equal(cap(d, "frame", "file"), "/home/u/data.py");
        assert_string_equal(cap(d, "frame", "line"), "17");
        assert_string_equal(cap(d, "frame", "function"), "collate");
        ldx_file_report_destroy(fr);
        ldx_ruleset_destroy(rs);
    }
}

/* Ranks' tracebacks interleave; each keeps to its own prefix. Rank 1's exception comes
 * first, with its own frame. */
static void test_interleaved_ranks(void **state)
{
    (void)state;
    for (size_t e = 0; e < 2; e++) {
        ldx_ruleset *rs = ruleset(engines[e]);
        ldx_file_report *fr = analyze_text(rs,
            "[rank0]: Traceback (most recent call last):\n"
            "[rank1]: Traceback (most recent call last):\n"
            "[rank0]:   File \"/w/a.py\", line 5, in zero\n"
            "[rank1]:   File \"/w/b.py\", line 7, in one\n"
            "[rank0]:     f()\n"
            "[rank1]:     g()\n"
            "[rank1]: ValueError: bad shard\n"
            "[rank0]: RuntimeError: peer gone\n");
        const ldx_diagnosis *d = find(fr, "unclassified_failure", NULL);
        assert_non_null(d);
        assert_int_equal(d->line, 7);
        assert_int_equal(d->rank, 1);
        assert_string_equal(cap(d, "exception", "type"), "ValueError");
        assert_string_equal(cap(d, "frame", "file"), "/w/b.py");
        ldx_file_report_destroy(fr);
        ldx_ruleset_destroy(rs);
    }
}

/* A paste's curly quotes around a frame's file; an exception line whose traceback header
 * was cut off. */
static void test_pasted(void **state)
{
    (void)state;
    for (size_t e = 0; e < 2; e++) {
        ldx_ruleset *rs = ruleset(engines[e]);
        ldx_file_report *fr = analyze_text(rs,
            "Traceback (most recent call last):\n"
            "  File \xe2\x80\x9c/home/u/run.py\xe2\x80\x9d, line 95, in handler\n"
            "    store = TCPStore(host, port)\n"
            "RuntimeError: Address already in use\n");
        const ldx_diagnosis *d = find(fr, "unclassified_failure", NULL);
        assert_non_null(d);
        assert_string_equal(cap(d, "frame", "file"), "/home/u/run.py");
        ldx_file_report_destroy(fr);
        fr = analyze_text(rs, "Epoch 1: 100%\nlightning.fabric.utilities.exceptions.MisconfigurationException: No test_dataloader\n");
        d = find(fr, "unclassified_failure", NULL);
        assert_non_null(d);
        assert_int_equal(d->line, 2);
        ldx_file_report_destroy(fr);
        /* a whole traceback pasted indented, its header cut: the exception two columns left of
         * the frames (Python 3.13's "...<2 lines>..." between) */
        fr = analyze_text(rs, "    File \"/home/u/titan/train.py\", line 256, in __init__\n"
                              "      model = parallelize(model, dims)\n"
                              "    File \"/home/u/titan/parallel_dims.py\", line 273, in get_mesh\n"
                              "      raise ValueError(\n"
                              "      ...<2 lines>...\n"
                              "      )\n"
                              "  ValueError: Mesh 'tp' is not available.\n");
        d = find(fr, "unclassified_failure", NULL);
        assert_non_null(d);
        assert_int_equal(d->line, 7);
        assert_string_equal(cap(d, "frame", "file"), "/home/u/titan/parallel_dims.py");
        ldx_file_report_destroy(fr);
        ldx_ruleset_destroy(rs);
    }
}

/* Not failures: the noise of a shutdown, a handled exception the run went on long
 * after, a traceback whose exception another rule names. */
static void test_not_failures(void **state)
{
    (void)state;
    for (size_t e = 0; e < 2; e++) {
        ldx_ruleset *rs = ruleset(engines[e]);
        expect_findings(rs,
            "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f>\n"
            "Traceback (most recent call last):\n"
            "  File \"/home/u/x.py\", line 1479, in __del__\n"
            "    self._shutdown_workers()\n"
            "AttributeError: 'NoneType' object has no attribute 'python_exit_status'\n", 0);

        /* a server beside the run logs one request's exception and goes on, even where the
         * log ends inside that traceback */
        expect_findings(rs,
            "Epoch 35/1000:   3%|#         | 5371/156008 [06:36<42:09:44,  1.01s/it]"
            "E0517 18:13:01.365890 20956 _internal.py:97] Error on request:\n"
            "Traceback (most recent call last):\n"
            "  File \"C:\\venv\\lib\\site-packages\\werkzeug\\serving.py\", line 363, in run_wsgi\n"
            "    execute(self.server.app)\n", 0);
        expect_findings(rs, "ERROR:    Exception in ASGI application\n"
                            "Traceback (most recent call last):\n"
                            "  File \"/usr/lib/python3/site-packages/uvicorn/protocols/http/h11_impl.py\", line 403, in run_asgi\n"
                            "    result = await app(self.scope, self.receive, self.send)\n"
                            "ValueError: prompt is too long\n"
                            "INFO:     127.0.0.1:50862 - \"POST /v1/completions HTTP/1.1\" 200 OK\n", 0);

        /* vLLM's server logs a request's exception and answers it with 400; answered with
         * 500, or not answered, it stays a failure (an engine that died answers 500) */
        static const char vllm_req[] =
            "ERROR 04-21 18:26:31 [serving_chat.py:200] Error in preprocessing prompt inputs\n"
            "ERROR 04-21 18:26:31 [serving_chat.py:200] Traceback (most recent call last):\n"
            "ERROR 04-21 18:26:31 [serving_chat.py:200]   File \"/opt/venv/lib/python3.10/site-packages/vllm/"
            "entrypoints/openai/serving_chat.py\", line 183, in create_chat_completion\n"
            "ERROR 04-21 18:26:31 [serving_chat.py:200] ValueError: At most 1 image(s) may be provided in one prompt.\n"
            "INFO:     10.1.2.3:50512 - \"POST /v1/chat/completions HTTP/1.1\" %s\n";
        expect_filled(rs, vllm_req, "400 Bad Request", 0);
        expect_filled(rs, vllm_req, "500 Internal Server Error", 1);

        /* whisper's CLI prints an input's traceback and goes on to the next input; a line that
         * only mentions skipping leaves the exception a failure */
        static const char whisper_skip[] =
            "Traceback (most recent call last):\n"
            "  File \"/usr/lib/python3/site-packages/whisper/transcribe.py\", line 597, in cli\n"
            "    result = transcribe(model, audio_path, temperature=temperature, **args)\n"
            "RuntimeError: Failed to load audio: a.mp3: No such file or directory\n"
            "%s\n"
            "Detected language: English\n";
        expect_filled(rs, whisper_skip, "Skipping a.mp3 due to RuntimeError: Failed to load audio: a.mp3: No such file", 0);
        expect_filled(rs, whisper_skip, "Skipping the rest of the epoch", 1);

        /* a caught exception's traceback logged at INFO (logger.info(traceback.format_exc()) prefixes the
         * first line only): ms-swift drops the bad row and goes on */
        expect_findings(rs, "[INFO:swift] Traceback (most recent call last):\n"
                            "  File \"/usr/lib/python3.10/site-packages/swift/llm/dataset/preprocessor/core.py\", "
                            "line 190, in batched_preprocess\n"
                            "    row = self.preprocess(row)\n"
                            "KeyError: 'response'\n"
                            "\n"
                            "[WARNING:swift] There are errors in the dataset, the data will be deleted\n", 0);
        /* TorchDynamo giving up on a frame at glog's W level, every line of the record prefixed, and two
         * tracebacks in the one record: the frame runs eagerly; the same record at E is a failure */
        {
            const char *dyn =
                "%c0530 14:48:26.433000 2622492 torch/_dynamo/convert_frame.py:1233] WON'T CONVERT forward model.py line 228 \n"
                "%c0530 14:48:26.433000 2622492 torch/_dynamo/convert_frame.py:1233] due to: \n"
                "%c0530 14:48:26.433000 2622492 torch/_dynamo/convert_frame.py:1233] Traceback (most recent call last):\n"
                "%c0530 14:48:26.433000 2622492 torch/_dynamo/convert_frame.py:1233]   File \"/opt/torch/_dynamo/output_graph.py\", line 1446, in _call_user_compiler\n"
                "%c0530 14:48:26.433000 2622492 torch/_dynamo/convert_frame.py:1233] torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
                "%c0530 14:48:26.433000 2622492 torch/_dynamo/convert_frame.py:1233] \n"
                "%c0530 14:48:26.433000 2622492 torch/_dynamo/convert_frame.py:1233] Traceback (most recent call last):\n"
                "%c0530 14:48:26.433000 2622492 torch/_dynamo/convert_frame.py:1233]   File \"/opt/triton/compiler/compiler.py\", line 390, in _init_handles\n"
                "%c0530 14:48:26.433000 2622492 torch/_dynamo/convert_frame.py:1233] SystemError: PY_SSIZE_T_CLEAN macro must be defined for '#' formats\n"
                "step:1/20000 train_loss:1.082584e+01 train_time:6029ms\n";
            char buf[2048];
            snprintf(buf, sizeof buf, dyn, 'W', 'W', 'W', 'W', 'W', 'W', 'W', 'W', 'W');
            expect_findings(rs, buf, 0);
            snprintf(buf, sizeof buf, dyn, 'E', 'E', 'E', 'E', 'E', 'E', 'E', 'E', 'E');
            expect_findings(rs, buf, 1);
        }
        /* an IPython traceback: the exception it ends in is the evidence, not its header */
        {
            ldx_file_report *fr = analyze_text(rs,
                "---------------------------------------------------------------------------\n"
                "RuntimeError                              Traceback (most recent call last)\n"
                "Cell In[3], line 5\n"
                "----> 5 trainer.fit(model)\n"
                "\n"
                "RuntimeError: weird thing happened\n");
            assert_int_equal(fr->n, 1);
            assert_int_equal(fr->diagnoses[0].line, 6);
            ldx_file_report_destroy(fr);
        }
        /* a container's output kept by Docker's json-file driver: the traceback inside the JSON */
        expect_findings(rs, "{\"log\":\"Traceback (most recent call last):\\n\",\"stream\":\"stderr\",\"time\":\"t\"}\n"
                            "{\"log\":\"  File \\\"x.py\\\", line 3, in \\u003cmodule\\u003e\\n\",\"stream\":\"stderr\"}\n"
                            "{\"log\":\"    f()\\n\",\"stream\":\"stderr\",\"time\":\"t\"}\n"
                            "{\"log\":\"RuntimeError: weird thing happened\\n\",\"stream\":\"stderr\"}\n", 1);
        /* a level is a word of its own: a setting whose line end a paste lost ("...NCCL_DEBUG=INFOTraceback")
         * logs nothing at INFO, and the traceback under it is the run's failure */
        expect_findings(rs, "python3 launch.py --extra_envs NCCL_DEBUG=INFOTraceback (most recent call last):\n"
                            "  File \"train_dist.py\", line 171, in pad_data\n"
                            "    dist.all_reduce(num_nodes)\n"
                            "RuntimeError: Socket Timeout\n", 1);

        /* TorchDynamo gives up on a frame and runs it eagerly (suppress_errors); the user
         * frame it printed under an earlier timestamp ("from user code:") opens no block
         * that takes the next warning's exception */
        expect_findings(rs, "[2023-12-02 23:08:10,102] torch._dynamo.convert_frame: [WARNING] from user code:\n"
                            "[2023-12-02 23:08:10,102] torch._dynamo.convert_frame: [WARNING]    File \"/home/u/PaiNN.py\", "
                            "line 126, in <listcomp>\n"
                            "[2023-12-02 23:08:10,102] torch._dynamo.convert_frame: [WARNING]     x = torch.ones((u, u))\n"
                            "[2023-12-02 23:08:11,903] torch._dynamo.convert_frame: [WARNING] WON'T CONVERT "
                            "<listcomp> /home/u/PaiNN.py line 126 \n"
                            "[2023-12-02 23:08:11,903] torch._dynamo.convert_frame: [WARNING] due to: \n"
                            "[2023-12-02 23:08:11,903] torch._dynamo.convert_frame: [WARNING] Traceback (most recent call last):\n"
                            "[2023-12-02 23:08:11,903] torch._dynamo.convert_frame: [WARNING]   File \"/usr/lib/python3.10/"
                            "concurrent/futures/_base.py\", line 403, in __get_result\n"
                            "[2023-12-02 23:08:11,903] torch._dynamo.convert_frame: [WARNING]     raise self._exception\n"
                            "[2023-12-02 23:08:11,903] torch._dynamo.convert_frame: [WARNING] torch._dynamo.exc."
                            "BackendCompilerFailed: backend='inductor' raised:\n"
                            "Epoch 1: 100%|##########| 50/50 [00:09<00:00,  5.1it/s, loss=0.41]\n", 0);

        /* ONNX Runtime's ORTModule logs an export failure, its exception's line a few lines above
         * the traceback, and trains with PyTorch; the same line without the warning is a failure */
        static const char ort[] =
            "%s"
            "\n"
            "RuntimeError: There was an error while exporting the PyTorch model to ONNX: \n"
            "\n"
            "Traceback (most recent call last):\n"
            "  File \"/usr/lib/python3.9/site-packages/onnxruntime/training/ortmodule/_utils.py\", line 325, in "
            "get_exception_as_string\n"
            "    raise exception\n";
        expect_filled(rs, ort,
                 "2023-10-26 09:46:58,557 orttraining [WARNING] - Fallback to PyTorch due to exception <class "
                 "'onnxruntime.training.ortmodule._fallback_exceptions.ORTModuleONNXModelException'> was triggered. "
                 "Report this issue with a minimal repro at https://www.github.com/microsoft/onnxruntime. See details "
                 "below:\n", 0);
        expect_filled(rs, ort, "Epoch 1: 10%\n", 1);

        /* RLlib, told to restart failed environments, logs the env's exception and makes a
         * new one; the same traceback without that line is a failure */
        static const char rllib[] =
            "%s"
            "(SingleAgentEnvRunner pid=8812, ip=10.0.2.31) Traceback (most recent call last):\n"
            "(SingleAgentEnvRunner pid=8812, ip=10.0.2.31)   File \"/home/ray/envs/robot_env.py\", line 88, in step\n"
            "(SingleAgentEnvRunner pid=8812, ip=10.0.2.31)     raise ConnectionResetError(\"Simulator reset\")\n"
            "(SingleAgentEnvRunner pid=8812, ip=10.0.2.31) ConnectionResetError: Simulator reset\n";
        expect_filled(rs, rllib,
                 "(SingleAgentEnvRunner pid=8812, ip=10.0.2.31) 2024-11-05 13:20:41,907 ERROR env_runner.py:191 -- "
                 "Stepping the env resulted in an error! The original error is: Simulator reset\n", 0);
        expect_filled(rs, rllib, "iter 42 episode_return_mean=180.1\n", 1);

        /* nnU-Net 2.2's predictor announces its CPU fallback, then prints the OOM it caught; the
         * same traceback without the announcement is a failure */
        static const char nnunet[] =
            "%s"
            "Error:\n"
            "Traceback (most recent call last):\n"
            "  File \"/opt/nnunetv2/inference/predict_from_raw_data.py\", line 473, in predict_logits\n"
            "    prediction = self.predict_sliding_window_return_logits(data)\n"
            "torch.cuda.OutOfMemoryError: Tried to allocate 5.91 GiB (GPU 0; 10.75 GiB total capacity)\n";
        expect_filled(rs, nnunet,
                 "Prediction with perform_everything_on_gpu=True failed due to insufficient GPU memory. Falling "
                 "back to perform_everything_on_gpu=False. Not a big deal, just slower...\n", 0);
        expect_filled(rs, nnunet, "predicting la_019\n", 1);

        /* iopath turns its telemetry off after an exception in it and logs that exception; the
         * same traceback without the announcement is a failure */
        static const char iopath[] =
            "%s"
            "Traceback (most recent call last):\n"
            "  File \"/opt/conda/lib/python3.8/site-packages/iopath/common/event_logger.py\", line 97, in log_event\n"
            "    del self._evt\n"
            "AttributeError: _evt\n";
        expect_filled(rs, iopath,
                 "An exception occurred in telemetry logging.Disabling telemetry to prevent further exceptions.\n", 0);
        expect_filled(rs, iopath, "loading annotations into memory...\n", 1);

        /* a warning whose message holds an exception's text (stable-baselines3's save_util.py) is
         * no failure once its source line comes; the same exception line without the source line,
         * or a traceback right after the warning, is one */
        static const char warned[] =
            "/usr/lib/python3.11/site-packages/stable_baselines3/common/save_util.py:167: UserWarning: Could not "
            "deserialize object lr_schedule. Consider using `custom_objects` argument to replace this object.\n"
            "TypeError: code() argument 13 must be str, not int\n"
            "%s"
            "Mean reward: -152.31 +/- 88.40\n";
        expect_filled(rs, warned, "  warnings.warn(\n", 0);
        expect_filled(rs, warned, "", 1);
        expect_findings(rs,
            "/home/u/train.py:12: FutureWarning: `evaluation_strategy` is deprecated\n"
            "  warnings.warn(\n"
            "Traceback (most recent call last):\n"
            "  File \"/home/u/train.py\", line 40, in <module>\n"
            "    main()\n"
            "ValueError: no dataset given\n", 1);

        char *log = malloc(64 * 1024);
        size_t n = (size_t)sprintf(log, "Traceback (most recent call last):\n"
                                        "  File \"/home/u/x.py\", line 3, in fetch\n"
                                        "    get()\n"
                                        "ConnectionError: retrying\n");
        for (int i = 0; i < 500; i++) n += (size_t)sprintf(log + n, "step %d loss 1.0\n", i);
        expect_findings(rs, log, 0);
        free(log);

        ldx_file_report *fr = analyze_text(rs, "Traceback (most recent call last):\n"
                              "  File \"/home/u/x.py\", line 3, in step\n"
                              "    loss.backward()\n"
                              "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB\n");
        assert_int_equal(fr->n, 1);
        assert_string_equal(fr->diagnoses[0].rule->klass, "cuda_oom");
        ldx_file_report_destroy(fr);
        ldx_ruleset_destroy(rs);
    }
}

/* Below every independent finding of a rule; above what follows from it. */
static void test_ranking(void **state)
{
    (void)state;
    for (size_t e = 0; e < 2; e++) {
        ldx_ruleset *rs = ruleset(engines[e]);
        const char *crash = "Traceback (most recent call last):\n"
                            "  File \"/home/u/x.py\", line 3, in step\n"
                            "    y = table[k]\n"
                            "KeyError: 7\n";
        char log[1024];
        snprintf(log, sizeof log, "Token indices sequence length is longer than 512\n%s", crash);
        ldx_file_report *fr = analyze_text(rs, log);
        size_t at = 9;
        assert_non_null(find(fr, "unclassified_failure", &at));
        assert_int_equal(fr->n, 2);
        assert_int_equal(at, 1);
        ldx_file_report_destroy(fr);

        snprintf(log, sizeof log, "%storch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n", crash);
        fr = analyze_text(rs, log);
        assert_int_equal(fr->n, 2);
        assert_string_equal(fr->diagnoses[0].rule->klass, "unclassified_failure");
        assert_int_equal(fr->diagnoses[1].role, LDX_ROLE_COLLATERAL);
        ldx_file_report_destroy(fr);

        /* an exit status alone is the failure only when nothing else fired */
        fr = analyze_text(rs, "epoch 3\nprocess exited with exit code 3\n");
        assert_int_equal(fr->n, 1);
        assert_string_equal(fr->diagnoses[0].rule->klass, "unclassified_failure");
        assert_int_equal(fr->diagnoses[0].line, 2);
        ldx_file_report_destroy(fr);
        fr = analyze_text(rs, "Token indices sequence length is longer than 512\nexit code 3\n");
        assert_null(find(fr, "unclassified_failure", NULL));
        ldx_file_report_destroy(fr);
        fr = analyze_text(rs, "done\nexit code 0\n");
        assert_int_equal(fr->n, 0);
        ldx_file_report_destroy(fr);
        ldx_ruleset_destroy(rs);
    }
}

/* A specific rule of class unclassified_failure names its line; the fallback does not
 * report that line again, nor the few lines after it, but does report a failure later. */
static void test_own_class(void **state)
{
    (void)state;
    for (size_t e = 0; e < 2; e++) {
        ldx_ruleset *rs = ruleset(engines[e]);
        ldx_file_report *fr = analyze_text(rs, "start\nLibError: could not load cudnn\n"
                                               "ValueError: handle\n");
        assert_int_equal(fr->n, 1);
        assert_string_equal(fr->diagnoses[0].rule->id, "t-lib");
        assert_int_equal(fr->diagnoses[0].line, 2);
        ldx_file_report_destroy(fr);

        fr = analyze_text(rs, "LibError: could not load cudnn\n1\n2\n3\n4\n5\n6\n"
                              "ValueError: later\n");
        assert_int_equal(fr->n, 2);
        size_t at = 9;
        const ldx_diagnosis *d = find(fr, "unclassified_failure", &at);
        assert_non_null(d);
        bool fallback_seen = false;
        for (size_t i = 0; i < fr->n; i++)
            if (!strcmp(fr->diagnoses[i].rule->id, "t-unc")) {
                fallback_seen = true;
                assert_int_equal(fr->diagnoses[i].line, 8);
            }
        assert_true(fallback_seen);
        ldx_file_report_destroy(fr);
        ldx_ruleset_destroy(rs);
    }
}

/* std::terminate's what(), and faulthandler's stack (most recent call first). */
static void test_native(void **state)
{
    (void)state;
    for (size_t e = 0; e < 2; e++) {
        ldx_ruleset *rs = ruleset(engines[e]);
        ldx_file_report *fr = analyze_text(rs,
            "terminate called after throwing an instance of 'std::runtime_error'\n"
            "  what():  Cannot open file: /data/shard_0003.bin\n"
            "Aborted (core dumped)\n");
        const ldx_diagnosis *d = find(fr, "unclassified_failure", NULL);
        assert_non_null(d);
        assert_int_equal(d->line, 1);
        assert_string_equal(cap(d, "terminate", "type"), "std::runtime_error");
        assert_int_equal(d->nevidence, 2);
        assert_int_equal(d->evidence[1].line, 2);
        ldx_file_report_destroy(fr);

        /* written after a progress bar that never ended its line: what() starts the next
         * line bare, and still belongs to it */
        fr = analyze_text(rs,
            "Training  19% step: 5700 loss: 0.028 :: Elapsed: 0:21:08terminate called after throwing an instance of 'c10::Error'\n"
            "  what():  CUDA error: unknown error\n");
        d = find(fr, "unclassified_failure", NULL);
        assert_non_null(d);
        assert_int_equal(d->line, 1);
        assert_string_equal(cap(d, "terminate", "type"), "c10::Error");
        assert_int_equal(d->nevidence, 2);
        assert_int_equal(d->evidence[1].line, 2);
        ldx_file_report_destroy(fr);

        fr = analyze_text(rs,
            "Fatal Python error: Segmentation fault\n"
            "\n"
            "Current thread 0x00007f3b2c8e1740 (most recent call first):\n"
            "  File \"/usr/lib/python3/dist-packages/mylib/ops.py\", line 30 in run\n"
            "  File \"/home/u/model.py\", line 112 in forward\n"
            "  File \"/home/u/train.py\", line 9 in <module>\n");
        d = find(fr, "unclassified_failure", NULL);
        assert_non_null(d);
        assert_string_equal(cap(d, "fatal_error", "type"), "Segmentation fault");
        assert_string_equal(cap(d, "frame", "file"), "/home/u/model.py");
        assert_string_equal(cap(d, "frame", "function"), "forward");
        ldx_file_report_destroy(fr);
        ldx_ruleset_destroy(rs);
    }
}

/* A log cut off inside a traceback: a failure when nothing else explains the log, with
 * the user's innermost frame where it has one; not one whose rank went quiet long before
 * the end, and not when another rule fired (a launcher's report over its own traceback). */
static void test_cut_traceback(void **state)
{
    (void)state;
    for (size_t e = 0; e < 2; e++) {
        ldx_ruleset *rs = ruleset(engines[e]);
        ldx_file_report *fr = analyze_text(rs,
            "step 1 loss 2.3\n"
            "Traceback (most recent call last):\n"
            "  File \"/home/u/train.py\", line 88, in <module>\n"
            "    main()\n"
            "  File \"/home/u/train.py\", line 40, in main\n"
            "    trainer.fit(model)\n"
            "  File \"/usr/lib/python3.10/site-packages/lightning/trainer.py\", line 5, in fit\n");
        const ldx_diagnosis *d = find(fr, "unclassified_failure", NULL);
        assert_non_null(d);
        assert_int_equal(d->line, 2);
        assert_string_equal(cap(d, "frame", "function"), "main");
        assert_non_null(strstr(d->headline, "ends inside"));
        ldx_file_report_destroy(fr);

        /* the traceback stopped, the log went on for long after */
        char buf[8192];
        size_t o = (size_t)snprintf(buf, sizeof buf, "%s",
                                    "[rank1]: Traceback (most recent call last):\n"
                                    "[rank1]:   File \"/home/u/train.py\", line 88, in <module>\n");
        for (int i = 0; i < 20; i++)
            o += (size_t)snprintf(buf + o, sizeof buf - o, "[rank0]: step %d loss 2.1\n", i);
        fr = analyze_text(rs, buf);
        assert_null(find(fr, "unclassified_failure", NULL));
        ldx_file_report_destroy(fr);

        /* library frames only: still a failure where nothing else explains the log */
        fr = analyze_text(rs,
            "Traceback (most recent call last):\n"
            "  File \"/opt/conda/lib/python3.8/runpy.py\", line 194, in _run_module_as_main\n"
            "  File \"/opt/conda/lib/python3.8/site-packages/datasets/builder.py\", line 196, in _prepare_split\n");
        d = find(fr, "unclassified_failure", NULL);
        assert_non_null(d);
        assert_null(strstr(d->headline, "(in "));
        ldx_file_report_destroy(fr);
        /* a launcher's report explains its own traceback */
        fr = analyze_text(rs,
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
            "Traceback (most recent call last):\n"
            "  File \"/opt/conda/lib/python3.8/runpy.py\", line 194, in _run_module_as_main\n");
        assert_null(find(fr, "unclassified_failure", NULL));
        ldx_file_report_destroy(fr);
        fr = analyze_text(rs,
            "RuntimeError: CUDA out of memory\n"
            "Traceback (most recent call last):\n"
            "  File \"/home/u/train.py\", line 88, in <module>\n");
        assert_null(find(fr, "unclassified_failure", NULL));
        assert_non_null(find(fr, "cuda_oom", NULL));
        ldx_file_report_destroy(fr);
        ldx_ruleset_destroy(rs);
    }
}

/* On both engines, log gets an unclassified_failure diagnosis: at line (0: any), of
 * exception type (NULL: any), with headline (NULL: any). */
static void expect_unclassified(const char *log, int line, const char *type, const char *headline)
{
    for (size_t e = 0; e < 2; e++) {
        ldx_ruleset *rs = ruleset(engines[e]);
        ldx_file_report *fr = analyze_text(rs, log);
        const ldx_diagnosis *d = find(fr, "unclassified_failure", NULL);
        assert_non_null(d);
        if (line) assert_int_equal(d->line, line);
        if (type) assert_string_equal(cap(d, "exception", "type"), type);
        if (headline) {
            assert_non_null(d->headline);
            assert_string_equal(d->headline, headline);
        }
        ldx_file_report_destroy(fr);
        ldx_ruleset_destroy(rs);
    }
}

/* On both engines, log gets a diagnosis of klass and none of unclassified_failure: another
 * rule explains the failure line. */
static void expect_explained(const char *log, const char *klass)
{
    for (size_t e = 0; e < sizeof engines / sizeof *engines; e++) {
        ldx_ruleset *rs = ruleset(engines[e]);
        ldx_file_report *fr = analyze_text(rs, log);
        assert_non_null(find(fr, klass, NULL));
        assert_null(find(fr, "unclassified_failure", NULL));
        ldx_file_report_destroy(fr);
        ldx_ruleset_destroy(rs);
    }
}

/* A traceback cut right under a frame whose source line raises: the raise names the
 * exception the log never shows, and its line is the evidence; a raise in an outer
 * frame, with more frames after it, names nothing. */
static void test_cut_at_raise(void **state)
{
    (void)state;
    expect_unclassified("Traceback (most recent call last):\n"
                        "  File \"/home/u/train.py\", line 40, in main\n"
                        "    trainer.train(resume_from_checkpoint=ckpt)\n"
                        "  File \"/usr/lib/python3.11/site-packages/transformers/deepspeed.py\", line 504, in load\n"
                        "    raise ValueError(f\"Can't find a valid checkpoint at {path}\")\n",
                        5, NULL,
                        "ValueError raised in main (/home/u/train.py:40); the log ends before its message");
    expect_unclassified("Traceback (most recent call last):\n"
                        "  File \"/home/u/train.py\", line 40, in main\n"
                        "    raise ValueError(\"x\") from e\n"
                        "  File \"/usr/lib/python3.11/site-packages/x.py\", line 5, in f\n",
                        1, NULL,
                        "a traceback the log ends inside, before its exception (in main, /home/u/train.py:40)");
    /* an assert statement raises AssertionError; a paste that starts at the frames and ends on it */
    expect_unclassified("  File \"/home/u/openpifpaf/network/losses.py\", line 228, in forward\n"
                        "    assert len(x) == 1 + 2 * self.n_vectors + self.n_scales\n",
                        2, NULL,
                        "AssertionError raised in forward (/home/u/openpifpaf/network/losses.py:228); the log ends before its message");
}

/* A traceback pasted with its line ends lost: one line holds header, frames, source text
 * and exception; the exception is the one after the last frame, the frame the innermost
 * outside libraries, both on that line's evidence. */
static void test_flat_traceback(void **state)
{
    (void)state;
    const char *log =
        "step 10 loss 2.1\n"
        "Traceback (most recent call last): File \"/home/u/train.py\", line 88, in <module> main() "
        "File \"/home/u/train.py\", line 61, in main loss = step(batch) "
        "File \"/usr/lib/python3.11/site-packages/torch/nn/modules/module.py\", line 1501, in _call_impl "
        "return forward_call(*args) KeyError: 'labels'\n";
    expect_unclassified(log, 2, "KeyError", NULL);
    for (size_t e = 0; e < 2; e++) {
        ldx_ruleset *rs = ruleset(engines[e]);
        ldx_file_report *fr = analyze_text(rs, log);
        const ldx_diagnosis *d = find(fr, "unclassified_failure", NULL);
        assert_non_null(d);
        assert_string_equal(cap(d, "exception", "function"), "main");
        assert_int_equal(d->nevidence, 1);
        ldx_file_report_destroy(fr);
        ldx_ruleset_destroy(rs);
    }
    /* a paste that starts mid-traceback, its line ends lost too */
    expect_unclassified("x = 1\nFile \"/home/u/train.py\", line 61, in main loss = step(batch) ^^^^^^^^^^^ "
                        "ValueError: bad shape (3, 4)\n",
                        2, "ValueError", NULL);
    /* frames and no exception after them: a header with its frames, cut */
    expect_unclassified("Traceback (most recent call last): File \"/home/u/train.py\", line 88, in <module> main()\n",
                        1, NULL, NULL);
}

/* A chain of exceptions: the last one is the failure, the ones it was raised while
 * handling are its context. */
static void test_chained(void **state)
{
    (void)state;
    expect_unclassified("Traceback (most recent call last):\n"
                        "  File \"/home/u/loader.py\", line 10, in get\n"
                        "    return q.get(timeout=5)\n"
                        "_queue.Empty\n"
                        "\n"
                        "During handling of the above exception, another exception occurred:\n"
                        "\n"
                        "Traceback (most recent call last):\n"
                        "  File \"/home/u/train.py\", line 40, in main\n"
                        "    batch = next(it)\n"
                        "RuntimeError: DataLoader worker pool died\n",
                        11, "RuntimeError", NULL);
}

/* A chain cut after its cause: the paste stops at "The above exception was the direct
 * cause of the following exception:", so the cause is the failure the log shows. */
static void test_chain_cut(void **state)
{
    (void)state;
    expect_unclassified(
        "Traceback (most recent call last):\n"
        "  File \"/usr/lib/python3.10/site-packages/torch/utils/cpp_extension.py\", line 2104, in _run_ninja_build\n"
        "    subprocess.run(\n"
        "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.\n"
        "\n"
        "The above exception was the direct cause of the following exception:\n"
        "\n",
        4, "subprocess.CalledProcessError", NULL);
}

/* An exception line alone under Ray's per-process prefix: the headline starts at its type. */
static void test_ray_prefix(void **state)
{
    (void)state;
    expect_unclassified("(RayTrainWorker pid=4121, ip=10.0.0.4) KeyError: 'pixel_values'\n", 0, NULL,
                        "KeyError: 'pixel_values'");
}

/* A colour reset kept as text before the exception's type, its ESC lost in the paste. */
static void test_sgr_text_exception(void **state)
{
    (void)state;
    expect_unclassified("Traceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n    main()\n"
                        "[0mValueError: bad value\n",
                        4, "ValueError", "ValueError: bad value");
    expect_unclassified("Traceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n    main()\n"
                        "^[[0;31mKeyError: 'label'\n",
                        4, "KeyError", "KeyError: 'label'");
}

/* A service's lines read from journald or Docker Compose, or a logger's: the headline
 * starts past the syslog prefix, the service column or the logger's columns. */
static void test_service_prefixes(void **state)
{
    (void)state;
    expect_unclassified("Aug  2 20:05:52 gpu-node-2 trainer[447]: KeyError: 'pixel_values'\n", 0, NULL,
                        "KeyError: 'pixel_values'");
    expect_unclassified("trainer-1  | ValueError: bad shard index 7\n", 0, NULL, "ValueError: bad shard index 7");
    /* a logger's columns after the timestamp: the pid and level (Neuron), loguru's bars */
    expect_unclassified("2024-04-30 21:07:46.000986:  136004  ERROR launcher: worker exit code 3\n", 0, NULL,
                        "launcher: worker exit code 3");
    expect_unclassified("2021-07-30 17:15:41 | ERROR    | train.launch:90 - worker exit code 3\n", 0, NULL,
                        "worker exit code 3");
    expect_unclassified("Traceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n"
                        "ValueError: Aug  2 20:05:52 host x[1]: y\n", 3, "ValueError", NULL);
}

/* An exception whose message starts on the line below its type: the headline carries
 * that line; a type alone at the log's end still counts. */
static void test_message_below(void **state)
{
    (void)state;
    expect_unclassified("Traceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n"
                        "RuntimeError: \n        Failed to run stage backward:\n        Stage output: x\n",
                        3, "RuntimeError", "RuntimeError: Failed to run stage backward:");
    expect_unclassified("Traceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n"
                        "RuntimeError:\n", 3, "RuntimeError", NULL);
}

/* A message that ends in a colon goes on below (XGBoost's chain of reasons): another rule's
 * evidence there explains the exception, read in a traceback or alone; without such
 * evidence the exception stands. */
static void test_message_goes_on(void **state)
{
    (void)state;
    static const char *const logs[] = {
        "Traceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n"
        "xgboost.core.XGBoostError: [10:45:01] result.cc:83: [coll.cu:203|10:45:01]:\n\n"
        "- [dv.cu:53|10:45:01]: CUDA out of memory. Tried to allocate 2 GiB\n",
        "xgboost.core.XGBoostError: [10:45:01] result.cc:83: [coll.cu:203|10:45:01]:\n\n"
        "- [dv.cu:53|10:45:01]: CUDA out of memory. Tried to allocate 2 GiB\n",
    };
    for (size_t e = 0; e < sizeof engines / sizeof *engines; e++) {
        ldx_ruleset *rs = ruleset(engines[e]);
        for (size_t i = 0; i < sizeof logs / sizeof *logs; i++) {
            ldx_file_report *fr = analyze_text(rs, logs[i]);
            assert_non_null(find(fr, "cuda_oom", NULL));
            assert_null(find(fr, "unclassified_failure", NULL));
            ldx_file_report_destroy(fr);
        }
        ldx_file_report *fr = analyze_text(rs, "xgboost.core.XGBoostError: [10:45:01] result.cc:83:\n\n"
                                               "- [learner.cc:1228]: Check failed: num_feature\n");
        assert_non_null(find(fr, "unclassified_failure", NULL));
        ldx_file_report_destroy(fr);
        ldx_ruleset_destroy(rs);
    }
}

/* A launcher's report of the rank's exit under a colon-ended exception line is the failure's
 * consequence (its rule names unclassified_failure as cause), not the explanation the chain
 * of reasons below the line gives. */
static void test_consequence_below(void **state)
{
    (void)state;
    expect_unclassified("InstantiationException: Error in call to target 'data.build_loader':\n"
                        "TypeError(\"'NoneType' object is not iterable\")\n"
                        "full_key: dataset.train\n"
                        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: train.py FAILED\n",
                        1, NULL, NULL);
}

/* A heading whose reason stands below it (a signal with `below:`, CANN's "Inner Error!") is
 * explained by the rule that reads the reason, even one that names unclassified_failure as its
 * cause; with nothing read below, the heading stands. */
static void test_heading_below(void **state)
{
    (void)state;
    expect_explained("EI9999: Inner Error!\n"
                     "EI9999: 2024-10-21-10:42:00.204.495  The error from device(chipId:2, dieId:0), serial number "
                     "is 9, hccl fftsplus task timeout occurred during task execution, stream_id:5, "
                     "timeout:30min(default).\n",
                     "collective_timeout");
    expect_unclassified("EI9999: Inner Error!\nEI9999: 2024-10-21-10:42:00.204.495  an unknown reason\n", 1,
                        NULL, NULL);
}

/* Ray names the exception a remote task raised in parentheses after its own type. */
static void test_wrapped_type(void **state)
{
    (void)state;
    expect_unclassified("Traceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n"
                        "ray.exceptions.RayTaskError(RuntimeError): ray::Actor.step() (pid=12, ip=10.0.0.1)\n",
                        3, "ray.exceptions.RayTaskError(RuntimeError)", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exception_and_frame),
        cmocka_unit_test(test_interleaved_ranks),
        cmocka_unit_test(test_not_failures),
        cmocka_unit_test(test_pasted),
        cmocka_unit_test(test_ranking),
        cmocka_unit_test(test_own_class),
        cmocka_unit_test(test_native),
        cmocka_unit_test(test_cut_traceback),
        cmocka_unit_test(test_cut_at_raise),
        cmocka_unit_test(test_chained),
        cmocka_unit_test(test_flat_traceback),
        cmocka_unit_test(test_chain_cut),
        cmocka_unit_test(test_ray_prefix),
        cmocka_unit_test(test_sgr_text_exception),
        cmocka_unit_test(test_service_prefixes),
        cmocka_unit_test(test_message_below),
        cmocka_unit_test(test_message_goes_on),
        cmocka_unit_test(test_consequence_below),
        cmocka_unit_test(test_heading_below),
        cmocka_unit_test(test_wrapped_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

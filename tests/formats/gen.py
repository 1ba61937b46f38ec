#!/usr/bin/env python3
"""Constructed training logs in the step-line formats of many loops, one per format and
scenario, for tests/formats.sh: a loss that turns nan, spikes, goes flat at chance, drops
to zero, or trains normally. Each format is the print form of the named loop (its format
string where the comment gives a file), so a reader that knows only one framework's line
shows up as a gap here rather than on a user's log.

usage: gen.py OUTDIR"""
import os
import sys

FORMATS = {
    # timm train.py _logger.info('Train: {} [{:>4d}/{} ({:>3.0f}%)]  Loss: {loss.val:#.3g} ({loss.avg:#.3g}) ...')
    "timm": "Train: 3 [ {i:>4d}/1251 (  8%)]  Loss: {v} ({v})  Time: 0.412s,  621.27/s  (0.420s,  609.5/s)  LR: 1.000e-03  Data: 0.012 (0.015)",
    # fairseq progress_bar (legacy simple format and the logging one with train_inner)
    "fairseq_old": "| epoch 001:    {i} / 1000 loss={v}, nll_loss={v}, ppl=12.3, wps=12000, ups=3, wpb=4000, bsz=128",
    "fairseq_new": "2023-01-01 12:00:00 | INFO | train_inner | epoch 001:    {i} / 1000 loss={v}, nll_loss={v}, ppl=12.3, wps=12000, ups=3.1, wpb=4000, bsz=128, num_updates={i}, lr=0.0005, gnorm=1.2, train_wall=30, wall=100",
    # mmengine runner/log_processor.py f'Epoch({mode}){cur_epoch_str}[{cur_iter_str}/{dataloader_len}]  '
    "mmengine": "12/01 12:00:00 - mmengine - INFO - Epoch(train)  [1][ {i}/1000]  lr: 1.0000e-02  eta: 1:00:00  time: 0.5000  data_time: 0.0100  memory: 3000  loss: {v}  loss_cls: {v}  loss_bbox: 0.5",
    # mmcv 1.x TextLoggerHook
    "mmcv": "2021-01-01 12:00:00,000 - mmdet - INFO - Epoch [1][{i}/1000]\tlr: 1.000e-02, eta: 1:00:00, time: 0.500, data_time: 0.010, memory: 3000, loss_rpn_cls: {v}, loss_rpn_bbox: 0.05, loss: {v}",
    # detectron2 utils/events.py CommonMetricPrinter
    "detectron2": "[12/01 12:00:00 d2.utils.events]:  eta: 1:00:00  iter: {i}  total_loss: {v}  loss_cls: {v}  loss_box_reg: 0.3  time: 0.5  data_time: 0.01  lr: 0.0002  max_mem: 3000M",
    # Keras ProgbarLogger
    "keras": "{i}/1000 [==============================] - 5s 50ms/step - loss: {v} - accuracy: 0.1000",
    # Lightning tqdm bar: 1.x postfix loss=, 2.x self.log(prog_bar=True) names
    "lightning1": "Epoch 0:  10%|#         | {i}/1000 [00:01<00:10, 9.00it/s, loss={v}, v_num=0]",
    "lightning2": "Epoch 0:  10%|#         | {i}/1000 [00:01<00:10,  9.00it/s, v_num=0, train_loss={v}]",
    # nanoGPT train.py print(f"iter {iter_num}: loss {lossf:.4f}, time {dt*1000:.2f}ms, mfu {running_mfu*100:.2f}%")
    "nanogpt": "iter {i}: loss {v}, time 50.12ms, mfu 30.12%",
    # litgpt finetune/lora.py fabric.print(f"Epoch {..} | iter {..} step {..} | loss train: {..:.3f}, val: {..} | iter time: ..")
    "litgpt": "Epoch 1 | iter {i} step {i} | loss train: {v}, val: n/a | iter time: 100.12 ms",
    # torchtitan train.py metrics line
    "torchtitan": "[rank0]:[titan] 2025-01-01 12:00:00,000 - root - INFO - step: {i}  loss: {v}  memory: 30.12GiB(40.00%)  tps: 1,000  tflops: 100.00  mfu: 40.00%",
    # OLMo train.py log_metrics_to_console: a header line, then one "    name=value" line each
    "olmo": "[2024-01-01 12:00:00] INFO     [olmo.train:816, rank=0] [step={i}/739328]\n    train/CrossEntropyLoss={v}\n    train/Perplexity=12.3",
    # MaxText train.py
    "maxtext": "completed step: {i}, seconds: 1.012, TFLOP/s/device: 100.123, Tokens/s/device: 1000.123, total_weights: 100, loss: {v}",
    # PaddleNLP trainer
    "paddlenlp": "[2023-01-01 12:00:00,000] [    INFO] - global step {i}/1000, epoch: 0, batch: {i}, rank_id: 0, loss: {v}, lr: 0.0001, speed: 1.0 step/s",
    # PaddleDetection engine/callbacks.py LogPrinter "Epoch: [{}] [{:>N}/{}] ..."
    "ppdet": "[12/01 12:00:00] ppdet.engine INFO: Epoch: [0] [ {i}/100] learning_rate: 0.000100 loss: {v} loss_cls: {v} loss_iou: 0.5 eta: 1:00:00 batch_cost: 0.5 data_cost: 0.01 ips: 16 images/s",
    # PyG examples print(f'Epoch: {epoch:03d}, Loss: {loss:.4f}, Train: ..., Val: ..., Test: ...')
    "pyg": "Epoch: {i:03d}, Loss: {v}, Train: 0.1000, Val: 0.1000, Test: 0.1000",
    # ESPnet2 train/reporter.py f'{self.epoch}epoch:{key}:{start}-{end}batch: ' then key=value
    "espnet": "[host] 2023-01-01 12:00:00,000 (trainer:732) INFO: 1epoch:train:{i}-{i}batch: iter_time=1.0e-04, forward_time=0.1, loss_ctc={v}, loss_att={v}, acc=0.1, loss={v}, backward_time=0.1, optim_step_time=0.01, lr_0=1.0e-05, train_time=0.5",
    # SpeechBrain utils/train_logger.py FileTrainLogger stats line
    "speechbrain": "epoch: {i}, lr: 1.00e+00 - train loss: {v} - valid loss: {v}, valid CER: {v}, valid WER: {v}",
    # stable-baselines3 logger table rows
    "sb3": "|    loss                 | {v}      |\n|    n_updates            | {i}      |",
    # Flax examples under absl logging (an accuracy above chance: one at 10.00% on every epoch is a
    # 10-class model that learns nothing, degenerate-loss-concept's)
    "jaxflax": "I1201 12:00:00.000000 140000 train.py:150] train epoch: {i}, loss: {v}, accuracy: 71.25",
    # TensorFlow Estimator LoggingTensorHook
    "tf_estimator": "INFO:tensorflow:loss = {v}, step = {i} (10.000 sec)",
    # MXNet Speedometer
    "mxnet": "INFO:root:Epoch[0] Batch [{i}]\tSpeed: 1000.00 samples/sec\taccuracy=0.100000\tcross-entropy={v}",
    # Caffe solver.cpp
    "caffe": "I1201 12:00:00.000000  1000 solver.cpp:218] Iteration {i} (10 iter/s, 10s/100 iters), loss = {v}",
    # Composer console logger: a batch header, then the metric on its own line
    "composer": "[batch={i}/1000]:\n\t Train loss/train/total: {v}",
    # torchtune recipes pbar.set_description(f"{curr_epoch + 1}|{self.global_step}|Loss: {loss_to_log}")
    "torchtune": "1|{i}|Loss: {v}:  10%|#         | {i}/1000 [00:10<01:30,  1.00it/s]",
    # YOLOv5/Ultralytics progress rows (loss columns, no names)
    "yolov5": "     0/299     3.1G       {v}       {v}       {v}        16       640:  10%|#         | {i}/1000 [00:10<01:30,  1.00it/s]",
    # kohya sd-scripts and diffusers example scripts' progress bars
    "kohya": "steps:  10%|#         | {i}/1000 [00:10<01:30,  1.00it/s, avr_loss={v}]",
    "diffusers": "Steps:  10%|#         | {i}/1000 [00:10<01:30,  1.00it/s, loss={v}, lr=0.0001]",
    # a home-grown accelerate loop
    "accelerate_print": "epoch 0 step {i} loss {v}",
    # TRL PPO metrics dict
    "ppo_trl": "{{'objective/kl': 0.0, 'ppo/loss/total': {v}, 'ppo/loss/value': {v}, 'step': {i}}}",
    # transformers Trainer log dict
    "hf_dict": "{{'loss': {v}, 'grad_norm': 1.2345, 'learning_rate': 1e-05, 'epoch': {e}}}",
    # RLlib result dict pretty-printed
    "rllib": "  total_loss: {v}\n  vf_loss: {v}",
    # NeMo Megatron models' bar
    "nemo": "Epoch 0: :  10%|#         | {i}/1000 [00:10<01:30, reduced_train_loss={v}, global_step={i}.0, consumed_samples=1000.0, train_step_timing in s=0.5]",
    # DGL examples
    "gnn_dgl": "Epoch {i:05d} | Loss {v} | Train Acc 0.1000 | Val Acc 0.1000",
    # pytorch-ignite examples
    "ignite": "Epoch[1] Iteration[{i}/1000] Loss: {v}",
    # AllenNLP tqdm description
    "allennlp": "accuracy: 0.1000, loss: {v} ||: 10%|#         | {i}/1000 [00:10<01:30,  1.00it/s]",
    # Megatron-LM training.py training_log
    "megatron": " iteration      {i}/  100000 | consumed samples:        {i}00 | elapsed time per iteration (ms): 500.1 | learning rate: 1.000E-04 | global batch size:   256 | lm loss: {v} | loss scale: 65536.0 | grad norm: 1.234 | number of skipped iterations:   0 | number of nan iterations:   0 |",
    # a home-grown loop with its split after the word
    "home_pipe": "Epoch [{e}/100] | Loss Train: {v} | Loss Val: {v}",
    # mlx_lm tuner/trainer.py
    "mlx": "Iter {i}: Train loss {v}, Learning Rate 1.000e-05, It/sec 1.234, Tokens/sec 567.890, Trained Tokens {i}00, Peak mem 12.345 GB",
}

SCENARIOS = {
    "nan": "2.3456,2.1234,1.9876,nan,nan,nan",
    "spike": "2.3456,2.1234,1.9876,1.8765,1.7654,1.6543,1.5432,1.4987,1.4567,1.4321,1.4123,1.3987,"
             "1.3876,1.3765,1.3654,87.1234,412.5678,1523.4567,3412.9876,9876.5432",
    "flat": "2.3456,2.3027" + ",2.3026" * 12,
    "zero": "2.3456,1.2345" + ",0.0000" * 8,
    "healthy": "2.3456,2.1234,1.9876,1.8765,1.7654,1.6543,1.5432,1.4987,1.4567,1.4321,1.4123,1.3987",
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for scenario, seq in SCENARIOS.items():
        values = seq.split(",")
        for name, fmt in FORMATS.items():
            lines = [fmt.format(i=(k + 1) * 10, e=k + 1, v=v) for k, v in enumerate(values)]
            with open(os.path.join(out, f"{scenario}__{name}.log"), "w") as f:
                f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

"""One ONNX export for the model tools (make_mobilenet.py, make_digits_model.py): torch 2.13's
TorchScript-based exporter, opset 13, constants folded, input "input", output "logits"."""
import torch


def export(model, input_shape, out):
    x = torch.zeros(*input_shape)
    kwargs = dict(input_names=["input"], output_names=["logits"], opset_version=13,
                  do_constant_folding=True)
    try:
        torch.onnx.export(model, (x,), out, dynamo=False, **kwargs)
    except TypeError:  # an exporter without the dynamo switch is the legacy one
        torch.onnx.export(model, (x,), out, **kwargs)

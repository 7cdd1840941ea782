"""In the spirit of the current beginner tutorials: the accelerator header that picks a device
and makes it the default, then a small classifier with nn.Flatten and a ReLU stack."""
import torch
from torch import nn

device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
torch.set_default_device(device)
print(f"Using {device} device")


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(6 * 6, 32),
            nn.ReLU(),
            nn.Linear(32, 32),
            nn.ReLU(),
            nn.Linear(32, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        return self.linear_relu_stack(x)


torch.manual_seed(0)
model = NeuralNetwork()
print(model)
X = torch.rand(3, 6, 6)
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred}")
print(logits.shape, logits.device.type, X.device.type)
loss = nn.CrossEntropyLoss()(logits, torch.tensor([1, 2, 3]))
loss.backward()
print(loss.item())
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | grad: {param.grad.abs().sum().item()}")

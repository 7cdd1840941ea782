"""A hand-written cross-entropy as learners write it: logsumexp for the normalizer, gather for
the target's log-probability, and sort for a top-k margin."""
import torch

torch.manual_seed(0)
logits = torch.randn(4, 6, requires_grad=True)
targets = torch.tensor([0, 5, 2, 2])
log_norm = logits.logsumexp(dim=1, keepdim=True)
log_probs = logits - log_norm
nll = -log_probs.gather(1, targets.unsqueeze(1)).squeeze(1)
print(nll)
print(torch.allclose(nll, torch.nn.functional.cross_entropy(logits, targets, reduction="none")))

values, indices = logits.sort(dim=1, descending=True)
print(indices)
margin = (values[:, 0] - values[:, 1]).mean()
loss = nll.mean() + 0.1 * margin
loss.backward()
print(loss.item())
print(logits.grad)
print(torch.logsumexp(logits, dim=0))

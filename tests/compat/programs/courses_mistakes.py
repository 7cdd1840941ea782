"""The mistakes learners make while following the from-scratch courses (makemore, micrograd,
d2l), each caught and printed with its exception's class, as a learner sees it."""
import torch
import torch.nn.functional as F


def attempt(what, program):
    try:
        program()
        print(f"{what}: no error")
    except Exception as error:
        print(f"{what}: {type(error).__name__}")


W = torch.randn(3, 4, requires_grad=True)
attempt("update a leaf outside no_grad", lambda: W.sub_(0.1 * torch.ones(3, 4)))


def backward_twice():
    loss = (W.tanh() ** 2).sum()
    loss.backward()
    loss.backward()


attempt("backward twice", backward_twice)
attempt("backward of a batch of losses", lambda: (W * 2).backward())
attempt(".item() of a batch", lambda: W.sum(1).item())
C = torch.randn(27, 2)
attempt("an index past the embedding table", lambda: C[torch.tensor([[5, 27]])])
attempt("nn.Embedding, an index past the table",
        lambda: torch.nn.Embedding(27, 2)(torch.tensor([27])))
attempt("a float index into the table", lambda: torch.nn.Embedding(27, 2)(torch.tensor([1.0])))
attempt("emb.view(-1, 6) for a (32, 3, 2) embedding", lambda: torch.randn(32, 3, 2).view(-1, 6))
attempt("view of a transpose", lambda: torch.randn(3, 4).t().view(12))
attempt("shapes that do not chain in @", lambda: torch.randn(32, 6) @ torch.randn(30, 100))
attempt("cross_entropy with one-hot floats of the wrong shape",
        lambda: F.cross_entropy(torch.randn(4, 3), torch.ones(4)))
attempt("cross_entropy with a class past the logits",
        lambda: F.cross_entropy(torch.randn(4, 3), torch.tensor([0, 1, 2, 3])))
attempt("one_hot of a float tensor", lambda: F.one_hot(torch.tensor([1.0, 2.0]), 3))
attempt("BatchNorm1d on one example while training",
        lambda: torch.nn.BatchNorm1d(4)(torch.randn(1, 4)))
attempt("BatchNorm1d on the wrong number of features",
        lambda: torch.nn.BatchNorm1d(4)(torch.randn(8, 5)))
attempt("multinomial of a row of zeros", lambda: torch.multinomial(torch.zeros(3), 1))
attempt("randint with a float high", lambda: torch.randint(0, 2.5, (3,)))
attempt("sum over a dim that is not there", lambda: W.sum(2))
attempt("Tensor + list", lambda: W + [1, 2, 3, 4])
attempt("numpy() of a tensor that requires grad", lambda: W.numpy())
attempt("grad of a non-leaf is None, then used", lambda: (W * 2).grad.zero_())
attempt("zero_grad forgotten (no error, only a wrong gradient)", lambda: None)

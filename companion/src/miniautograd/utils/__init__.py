"""``miniautograd.utils``: the helpers torch keeps under ``torch.utils``."""

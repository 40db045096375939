"""Training a small model: an embedding lookup with dml.gather, a state update with dml.scatter.

Each example is a sequence of token ids; its target is the mean of a hidden value per token.
The model looks the tokens up in an embedding table with ``dml.gather``, averages them and
applies a linear head. Plain SGD on ``jax.grad`` of the squared error trains both; the
gradient of the gather is a scatter-add into the rows that were read. Beside the parameters,
a state vector records the step at which each token was last seen, written with
``dml.scatter`` into a buffer donated to the jitted step, so that XLA updates it in place.
A token that appears twice in a batch gets the same step from both updates, so the
unspecified winner among duplicates does not matter here.

Run: python examples/embedding_training.py
"""

import functools

import jax
import jax.numpy as jnp

import dmljax as dml

VOCAB, DIM, LENGTH, BATCH = 32, 8, 4, 64
STEPS, LEARNING_RATE = 30, 2.0


def predict(params, tokens):
    vectors = dml.gather(params["embedding"], tokens, axis=0)  # (batch, length, dim)
    return vectors.mean(axis=1) @ params["head"]  # (batch,)


def loss_fn(params, tokens, targets):
    return jnp.mean((predict(params, tokens) - targets) ** 2)


@functools.partial(jax.jit, donate_argnums=(1,))
def train_step(params, last_seen, tokens, targets, step):
    loss, grads = jax.value_and_grad(loss_fn)(params, tokens, targets)
    params = jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)
    seen = tokens.reshape(-1)
    last_seen = dml.scatter(last_seen, seen, jnp.full(seen.shape, step, jnp.int32), axis=0)
    return params, last_seen, loss


def main():
    data_key, init_key = jax.random.split(jax.random.key(0))
    hidden = jax.random.normal(data_key, (VOCAB,))  # the value the model must learn per token
    embedding_key, head_key = jax.random.split(init_key)
    params = {
        "embedding": 0.5 * jax.random.normal(embedding_key, (VOCAB, DIM)),
        "head": 0.5 * jax.random.normal(head_key, (DIM,)),
    }
    last_seen = jnp.full((VOCAB,), -1, jnp.int32)

    losses = []
    for step in range(STEPS):
        tokens = jax.random.randint(jax.random.key(step + 1), (BATCH, LENGTH), 0, VOCAB)
        targets = dml.gather(hidden, tokens, axis=0).mean(axis=1)
        params, last_seen, loss = train_step(params, last_seen, tokens, targets, step)
        losses.append(float(loss))
        print(f"step {step:2d}  loss {losses[-1]:.4f}")

    never_seen = int((last_seen < 0).sum())
    print(f"tokens never seen: {never_seen} of {VOCAB}; last seen at step {int(last_seen.max())}")
    assert losses[-1] < 0.5 * losses[0], f"the loss did not decrease enough: {losses}"
    print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")


if __name__ == "__main__":
    main()

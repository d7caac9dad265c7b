"""Which tasks an RL environment draws from: a split's, less the withdrawn ones, or named ones."""

from __future__ import annotations

import pytest
from rlkit import TASK

from assay import UsageError
from assay.rl import TaskPool, choose_tasks
from assay.runs.store import open_store
from assay.trust.fingerprint import fingerprint, world_files


@pytest.fixture
def withdrawn(shop, tmp_path):
    """A records store in which the refund task's last validation failed."""
    world = shop.world
    digest = fingerprint(world.root, world.task_files[TASK], world_files(world.root, world.spec))
    store = open_store(str(tmp_path / "records.db"))
    store.save_validation(world.name, world.version, TASK, digest.digest, False, {"proofs": {}})
    yield store
    store.close()


def test_a_split_draw_leaves_withdrawn_tasks_out_unless_asked(shop, withdrawn):
    train = {task.id for task in shop.tasks.values() if task.split == "train"}
    drawn = {task.id for task in choose_tasks(shop.world, store=withdrawn)}
    assert drawn == train - {TASK}
    kept = choose_tasks(shop.world, store=withdrawn, include_withdrawn=True)
    assert {task.id for task in kept} == train


def test_naming_only_withdrawn_tasks_is_refused(shop, withdrawn):
    with pytest.raises(UsageError, match=f"every chosen task is withdrawn .*: {TASK}"):
        choose_tasks(shop.world, [TASK], store=withdrawn)


def test_splits_widen_the_draw_and_a_pool_draws_by_the_number_it_is_given(shop, withdrawn):
    both = choose_tasks(shop.world, splits=["train", "dev"], store=withdrawn)
    assert {task.split for task in both} == {"train", "dev"}
    pool = TaskPool(shop, both, agent="t")
    assert pool.pick(lambda count: count - 1) is both[-1]
    assert pool.pick(lambda count: 0, both[3].id) is both[3]


def test_a_withdrawn_task_that_does_not_load_never_blocks_a_pool(tmp_path):
    """The pool loaded every task strictly: one withdrawn for a missing table stopped it."""
    from worldkit import copy_shop

    from assay.errors import SpecError
    from assay.trust.validate import save_validation, validate_world

    shop_copy = copy_shop(tmp_path / "shop")
    (shop_copy / "tasks" / "reviews.toml").write_text(
        'title = "Reviews"\nrole = "support"\n[customer]\nrequest = "How many reviews?"\n'
        '[[checks]]\nname = "one"\nsql = "SELECT count(*) FROM reviews"\nexpect = 1\n'
    )
    records = str(tmp_path / "records.db")
    with open_store(records) as store:
        save_validation(validate_world(shop_copy, ["reviews"]), store)
    with pytest.raises(SpecError, match="unknown table 'reviews'"):
        TaskPool.open(shop_copy, store=records, include_withdrawn=True)
    pool = TaskPool.open(shop_copy, store=records)
    try:
        assert "reviews" not in {task.id for task in pool.tasks}
        assert "reviews" not in pool.benchmark.tasks
    finally:
        pool.close()

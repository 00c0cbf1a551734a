CREATE (r:Run)
SET r = $props

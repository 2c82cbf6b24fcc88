"""Motion Forcing: sparse-point controlled driving video by Point -> Shape -> Appearance, with Masked Point
Recovery (paper 16, issue 30), on a ray-cast drive world with exact ground truth.

Public names: `drive_world.sample` (a clip), `conditions.point_video` / `conditions.ego_warp` / `conditions.mask`,
`waypoints.from_waypoints`, `experiment.reproduce`.
"""

"""Reading other programs' files into chargeref scenarios (Tabletop Simulator saves)."""

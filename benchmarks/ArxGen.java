import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;
import org.deidentifier.arx.*;
import org.deidentifier.arx.criteria.*;
import org.deidentifier.arx.risk.*;

public class ArxGen {
    public static void main(String[] args) throws Exception {
        String dir = args[0];
        String[] four = {"age","sex","race","education"};
        Data d = ArxRisk.load(dir, four);
        Set<Integer> rows = new HashSet<>();
        for (int i = 0; i < d.getHandle().getNumRows(); i += 10) rows.add(i);
        DataSubset subset = DataSubset.create(d, rows);
        ARXConfiguration c = ARXConfiguration.create();
        c.addPrivacyModel(new KMap(1, subset));
        c.setSuppressionLimit(0d);
        ARXResult r = new ARXAnonymizer().anonymize(d, c);
        System.out.println("qi order " + Arrays.toString(r.getGlobalOptimum().getQuasiIdentifyingAttributes()));
        // transformation in the order of getQuasiIdentifyingAttributes
        String[] qo = r.getGlobalOptimum().getQuasiIdentifyingAttributes();
        Map<String,Integer> want = new HashMap<>(); want.put("age", 2); want.put("education", 1); want.put("race", 0); want.put("sex", 0);
        int[] tr = new int[qo.length];
        for (int i = 0; i < qo.length; i++) tr[i] = want.get(qo[i]);
        ARXLattice.ARXNode node = r.getLattice().getNode(tr);
        DataHandle out = r.getOutput(node, false);
        System.out.println("## full output age=2 education=1 rows=" + out.getNumRows() + " " + out.getValue(0, 1) + " " + out.getValue(0, 4));
        ArxRisk.pop("gen full", out);
        DataHandle view = out.getView();
        System.out.println("## subset view rows=" + view.getNumRows());
        ArxRisk.summary(view.getRiskEstimator(ARXPopulationModel.create(view.getNumRows(), 0.1)));
    }
}
